"""Loaded at start-up by child processes of the Hub tests (this folder is put on PYTHONPATH).

It refuses every connection and name lookup that is not on the loopback interface, and
records each refused attempt in the file named by LOOPBACK_ONLY_LOG, so a test can prove
that a client it ran with the network "on" talked to nothing but the loopback fake Hub.
"""

import ipaddress
import os
import socket

_LOG = os.environ.get("LOOPBACK_ONLY_LOG")
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def _is_loopback(host):
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    host = str(host).strip("[]")
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _refuse(what):
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(what + "\n")
    raise OSError(f"loopback_only: refused {what}")


_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo


def _check_address(sock, address):
    if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):
        _refuse(f"connect {address!r}")


def connect(self, address):
    _check_address(self, address)
    return _connect(self, address)


def connect_ex(self, address):
    _check_address(self, address)
    return _connect_ex(self, address)


def getaddrinfo(host, *args, **kwargs):
    if not _is_loopback(host):
        _refuse(f"lookup {host!r}")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = connect
socket.socket.connect_ex = connect_ex
socket.getaddrinfo = getaddrinfo
