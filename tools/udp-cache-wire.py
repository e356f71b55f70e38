#!/usr/bin/env python3
"""Whose resends a Sun RPC/UDP replica's reply cache answered, from the wire.

Reads captures taken in a replica's own namespace (tcpdump -w on its link,
UDP) of rpclab's NEXT calls and replies, and says, for every call (XID,
client id, seq) that reached the replica two or more times: whether all its
copies came from one source port or from several, and what the replica's
replies said. next_result's last field, times_executed, is 1 in a reply the
cache replayed (the first reply's bytes) and 2, 3, ... when the call ran
again. A reply is paired with its request by XID and the request's port.

libtirpc's cache keys an entry on the caller's whole address, port
included; nginx's UDP balancer sends each session from a new socket. Used
for docs/results/dependability.md ("Levy's remedy fails silently behind a
UDP balancer"):

    python3 tools/udp-cache-wire.py RUN/captures/*-r2-*.pcap
"""
import collections
import struct
import sys

NEXT = 1  # idl/rpclab.x: RPCLAB_NEXT


def packets(path):
    """(seconds, source port, destination port, UDP payload) of each IPv4 UDP packet."""
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 24:
        return
    endian = '<' if struct.unpack('<I', data[:4])[0] in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    linktype = struct.unpack(endian + 'I', data[20:24])[0]
    skip = {1: 14, 113: 16, 276: 20, 101: 0, 12: 0}.get(linktype)
    if skip is None:
        sys.exit(f'{path}: link type {linktype} is not one this reads (Ethernet, Linux cooked, raw IP)')
    at = 24
    while at + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack(endian + 'IIII', data[at:at + 16])
        ip = data[at + 16 + skip:at + 16 + incl]
        at += 16 + incl
        if len(ip) < 28 or ip[0] >> 4 != 4 or ip[9] != 17:
            continue
        ihl = (ip[0] & 15) * 4
        sport, dport = struct.unpack('>HH', ip[ihl:ihl + 4])
        yield sec + usec / 1e6, sport, dport, ip[ihl + 8:]


def skip_auth(rpc, at):
    _, length = struct.unpack('>II', rpc[at:at + 8])
    return at + 8 + ((length + 3) & ~3)


def analyse(path):
    arrivals = collections.defaultdict(list)  # (xid, client, seq) -> [source port]
    replies = collections.defaultdict(list)   # (xid, destination port) -> [times_executed]
    for _, sport, dport, rpc in packets(path):
        if len(rpc) < 24:
            continue
        xid, kind = struct.unpack('>II', rpc[:8])
        if kind == 0:  # call: rpcvers, prog, vers, proc, cred, verf, args
            if struct.unpack('>I', rpc[20:24])[0] != NEXT:
                continue
            at = skip_auth(rpc, skip_auth(rpc, 24))
            if len(rpc) >= at + 8:
                arrivals[(xid, *struct.unpack('>II', rpc[at:at + 8]))].append(sport)
        elif kind == 1 and struct.unpack('>I', rpc[8:12])[0] == 0:  # an accepted reply: verf, status, result
            at = skip_auth(rpc, 12)
            if len(rpc) >= at + 16 and struct.unpack('>I', rpc[at:at + 4])[0] == 0:
                replies[(xid, dport)].append(struct.unpack('>I', rpc[at + 12:at + 16])[0])
    verdicts = collections.Counter()
    for (xid, _, _), ports in arrivals.items():
        if len(ports) < 2:
            continue
        times = [n for p in dict.fromkeys(ports) for n in replies.get((xid, p), [])]
        port = 'from one port' if len(set(ports)) == 1 else 'from 2+ ports'
        if times and max(times) >= 2:
            verdicts[port + ', ran again'] += 1
        elif len(times) >= 2:
            verdicts[port + ', the cache answered'] += 1
        else:
            verdicts[port + ', fewer than 2 replies seen'] += 1
    return len(arrivals), sum(map(len, arrivals.values())), verdicts


def main(paths):
    if not paths:
        sys.exit(__doc__)
    total = collections.Counter()
    for path in paths:
        calls, requests, verdicts = analyse(path)
        total.update(verdicts)
        again = sum(verdicts.values())
        print(f'{path}: {requests} NEXT requests, {calls} calls, {again} of them arrived 2+ times: ' +
              ('; '.join(f'{k} {v}' for k, v in sorted(verdicts.items())) or 'none'))
    print(f'all {len(paths)} captures: ' + ('; '.join(f'{k} {v}' for k, v in sorted(total.items())) or 'none'))


if __name__ == '__main__':
    main(sys.argv[1:])
