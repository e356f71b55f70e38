#!/usr/bin/env python3
"""Recompute each trial's causes object from its files, using only
docs/results-format.md and docs/dependability.md ("How a cause is decided").

Written on 2026-11-29 by a reader given those two pages and two run
folders and told not to read rpclab's code: it matched rpclab's causes on
all 48 captured trials of the quick and remedies presets at once, and its
report settled two readings the page had left open (see the page). Kept as
it was written (paths aside), so that CausesWireE2E can check that the page
still describes what rpclab computes: exit 0 when every trial with a
capture matches, 1 when one does not, 2 when there is no such trial.

usage: causes.py [RUN_FOLDER...] [--gap-ms=X|none] [--over-b=same|own] [--opt=KEY=VALUE] [--verbose]
Defaults are the page's reading; --gap-ms and --opt (drained, ebefore, match_stamp, sort, thr,
fallback, nodrain, nobudget, gaveup_reads) switch to alternative readings, for sensitivity checks.
"""
import json
import math
import os
import struct
import sys
import zlib

GAPS = []
KEYS = ["network_copy", "retransmit_timeout", "stale_reply_resend",
        "library_retry", "app_retry", "unexplained"]
OPTS = {"gap_ms": 1.0, "over_b": "same", "verbose": False, "drained": "latest", "ebefore": "lt",
        "match_stamp": "earlier", "sort": "stamp", "thr": 0.95, "fallback": "each", "nodrain": 0, "nobudget": 0, "gaveup_reads": 1}


# ---------------------------------------------------------------- readers
def read_journal(path):
    d = open(path, "rb").read()
    if len(d) < 4096 or d[:8] != b"RPCLJRN1":
        raise ValueError("journal: bad magic or short")
    version, hdr, rb, starts, cap, reserved, unrec, unlog = struct.unpack_from("<IIIIQQQQ", d, 8)
    if version != 1 or hdr != 4096 or rb != 64:
        raise ValueError("journal: version/layout")
    if 4096 + 64 * reserved > len(d):
        raise ValueError("journal: reserved beyond file")
    recs = []
    for i in range(reserved):
        o = 4096 + 64 * i
        seal = struct.unpack_from("<I", d, o)[0]
        if seal == 0:
            continue
        crc = zlib.crc32(d[o + 4:o + 64]) or 1
        if crc != seal:
            raise ValueError("journal: bad seal at slot %d" % i)
        (kind, known, port, cid, seq, status, exp, times, rid, rt, mono, conn,
         ip, attempt, start, index) = struct.unpack_from("<BBHIIIIIIqqIIHHI", d, o + 4)
        if index != i:
            raise ValueError("journal: record in wrong slot %d" % i)
        recs.append(dict(kind=kind, known=known, port=port if known & 8 else None,
                         cid=cid, seq=seq, xid=rid if known & 1 else None,
                         rt=rt, kstamp=bool(known & 16), attempt=attempt if known & 2 else 0,
                         slot=i))
    return recs


def read_wire(path):
    d = open(path, "rb").read()
    if d[:8] != b"RPCLWIR1":
        raise ValueError("wire: bad magic")
    version, rb, packets, drops = struct.unpack_from("<IIQQ", d, 8)
    if version != 1 or rb != 16 or 32 + 16 * packets != len(d):
        raise ValueError("wire: version/layout/length")
    recs = [struct.unpack_from("<qIHH", d, 32 + 16 * i) for i in range(packets)]
    return recs, packets, drops


def read_call_record(path):
    lines = open(path).read().split("\n")
    head = json.loads(lines[0])
    calls = {}
    for ln in lines[1:]:
        if not ln or ln.startswith("+"):
            continue
        f = ln.split("\t")
        attempts = int(f[4]) if len(f) > 4 and head.get("version", 1) >= 2 else 1
        calls[int(f[0])] = dict(kind=f[1], attempts=attempts)
    return head, calls


# ---------------------------------------------------------------- the replay (step 3)
class Tx:
    __slots__ = ("xid", "port", "t", "tmatch", "copies", "reason", "execs", "prev_t", "idx")

    def __init__(self, xid, port, t, idx):
        self.xid, self.port, self.t, self.tmatch = xid, port, t, t
        self.copies, self.reason, self.execs, self.prev_t, self.idx = 0, None, 0, None, idx


def replay_socket(port, recs, interval_ms, timeout_ms, drain, stats):
    """recs: this port's wire records in file order. Returns {xid: [Tx ...]} in walk order."""
    iv = interval_ms * 1_000_000 if interval_ms else 0
    B = math.ceil(timeout_ms / interval_ms) if interval_ms and timeout_ms and not OPTS["nobudget"] else None
    drain = drain and not OPTS["nodrain"]
    # b. join copies to the transmission of its XID listed before it
    events = []          # (t, fileidx, kind, obj)
    last_tx = {}
    for i, (t, xid, p, kind) in enumerate(recs):
        if kind == 1 or (kind == 3 and xid not in last_tx):
            tx = Tx(xid, p, t, i)
            last_tx[xid] = tx
            events.append((t, i, "tx", tx))
            if kind == 3:
                stats["orphan_copies"] += 1
        elif kind == 3:
            tx = last_tx[xid]
            tx.copies += 1
            if OPTS["match_stamp"] == "earlier" and t and (tx.tmatch == 0 or t < tx.tmatch):
                tx.tmatch = t
        elif kind == 2:
            events.append((t, i, "rx", (xid, t)))
    # c. order by stamp (transmission by its original's), stable; file order if a stamp is 0
    if OPTS["sort"] == "stamp" and all(e[0] != 0 for e in events):
        events.sort(key=lambda e: e[0])
    # d. walk
    unread, drained, owed = [], [], []
    cur = None            # dict(xid, sends, last)
    seen = {}
    txs = {}

    def end_call(c):
        if c is None:
            return
        sends = c["sends"]
        gave_up = B is not None and (sends == B or (sends > B and OPTS["over_b"] == "same"))
        if B is not None and sends > B:
            stats["calls_over_B"] += 1
        if gave_up:
            if OPTS["gaveup_reads"] and unread and (unread[0][1] == 0 or c["last"] == 0 or not iv
                           or unread[0][1] < c["last"] + iv
                           or (OPTS["ebefore"] == "le" and unread[0][1] == c["last"] + iv)):
                unread.pop(0)
        else:
            for k, r in enumerate(unread):
                if r[0] == c["xid"]:
                    unread.pop(k)
                    break

    for t, i, what, obj in events:
        if what == "rx":
            xid = obj[0]
            for k, ox in enumerate(owed):
                if ox != xid:
                    owed.pop(k)
                    stats["owed_paid"] += 1
                    break
            else:
                unread.append(obj)
            continue
        tx = obj
        txs.setdefault(tx.xid, []).append(tx)
        if tx.xid not in seen:
            end_call(cur)
            if drain:
                drained = unread[:]
                unread.clear()
            cur = dict(xid=tx.xid, sends=1, last=tx.t)
            seen[tx.xid] = True
            tx.reason = "first"
            continue
        if cur is None or tx.xid != cur["xid"]:
            tx.reason = "unexplained"
            stats["tx_after_call_over"] += 1
            continue
        tx.prev_t = cur["last"]
        cur["sends"] += 1
        if unread and unread[0][0] != tx.xid:
            tx.reason = "stale_reply_resend"
            unread.pop(0)
        elif not iv or tx.t == 0 or cur["last"] == 0 or tx.t - cur["last"] >= OPTS["thr"] * iv:
            tx.reason = "retransmit_timeout"
        else:
            tx.reason = "stale_reply_resend"
            for k, r in enumerate(unread):
                if r[0] != tx.xid:
                    unread.pop(k)
                    stats["d3_further_back"] += 1
                    break
            else:
                if drained:
                    drained.pop(-1 if OPTS["drained"] == "latest" else 0)
                    stats["d3_drained"] += 1
                else:
                    owed.append(tx.xid)
                    stats["d3_owed"] += 1
        cur["last"] = tx.t
    return txs


# ---------------------------------------------------------------- one trial
def trial_causes(tdir, stats):
    c = {k: 0 for k in KEYS}
    journal = read_journal(os.path.join(tdir, "journal.bin"))
    clients = {}
    interval = timeout = None
    drain = False
    for fn in sorted(os.listdir(tdir)):
        if fn.startswith("client-") and fn.endswith(".rec"):
            head, calls = read_call_record(os.path.join(tdir, fn))
            clients[head["client_id"]] = calls
            s = head.get("settings", {})
            interval = s.get("retry_timeout_ms") if s.get("retry_timeout_ms", -1) > 0 else 0
            timeout = s.get("timeout_ms", 0)
            drain = bool(head.get("drain_stale_replies"))
    # a. executions of recorded calls, journal order
    execs = [r for r in journal if r["kind"] == 1 and r["cid"] in clients and r["seq"] in clients[r["cid"]]]
    wire_path = os.path.join(tdir, "wire.bin")
    wire, packets, drops = read_wire(wire_path) if os.path.exists(wire_path) else (None, None, None)
    byport, xid_ports = {}, {}
    if wire is not None:
        for r in wire:
            if r[3] in (1, 2, 3):
                byport.setdefault(r[2], []).append(r)
            if r[3] in (1, 3):
                xid_ports.setdefault(r[1], set()).add(r[2])
    replays = {}
    # group executions per call
    percall = {}
    for e in execs:
        percall.setdefault((e["cid"], e["seq"]), []).append(e)
    labels = {}           # slot -> cause
    wire_xids = {}        # (port, xid) -> list of extra executions to be decided by the wire
    call_xid_execs = {}   # (port,xid) -> all executions (incl. first) of that XID for the call
    for key, es in percall.items():
        attempts_left = clients[key[0]][key[1]]["attempts"] - 1
        ran = set()
        for n, e in enumerate(es):
            x = e["xid"]
            if n == 0:
                ran.add(x)
            elif e["attempt"] > 0:
                labels[e["slot"]] = "library_retry"
            elif x is None:           # no request id: app retries up to the attempts
                if attempts_left > 0:
                    attempts_left -= 1
                    labels[e["slot"]] = "app_retry"
                else:
                    labels[e["slot"]] = "unexplained"
            elif x not in ran:
                ran.add(x)
                if attempts_left > 0:
                    attempts_left -= 1
                    labels[e["slot"]] = "app_retry"
                else:
                    labels[e["slot"]] = "unexplained"
            else:
                labels[e["slot"]] = None      # to the wire
            if x is not None:
                port = e["port"]
                if port is None:
                    ps = xid_ports.get(x, set())
                    port = next(iter(ps)) if len(ps) == 1 else ("?", x)
                call_xid_execs.setdefault((port, x), []).append(e)
    # 3/4. the wire
    for (port, x), es in call_xid_execs.items():
        extra = [e for e in es if labels.get(e["slot"], "x") is None]
        if not extra:
            continue
        if wire is None or drops or isinstance(port, tuple) or port not in byport:
            for e in extra:
                labels[e["slot"]] = "unexplained"
            continue
        if port not in replays:
            replays[port] = replay_socket(port, byport[port], interval, timeout, drain, stats)
        txs = replays[port].get(x)
        if not txs:
            for e in extra:
                labels[e["slot"]] = "unexplained"
            stats["xid_never_sent"] += 1
            continue
        # 4. match by stamps
        ok = True
        match = {}
        for e in es:
            if not e["kstamp"] or e["rt"] == 0:
                ok = False
                break
            cand = [tx for tx in txs if tx.tmatch and tx.tmatch < e["rt"]]
            if not cand:
                ok = False
                break
            tx = max(cand, key=lambda tx: tx.tmatch)
            if OPTS["gap_ms"] is not None and e["rt"] - tx.tmatch > OPTS["gap_ms"] * 1e6:
                ok = False
                stats["gap_fallback"] += 1
                break
            match[e["slot"]] = tx
        if ok:
            for e in es:
                tx = match[e["slot"]]
                tx.execs += 1
                if labels.get(e["slot"], "x") is not None:
                    continue          # the call's first execution (or app retry etc.)
                if tx.execs == 1:
                    lab = tx.reason if tx.reason not in ("first", None) else "unexplained"
                    if tx.reason == "first":
                        stats["extra_on_first_tx"] += 1
                elif tx.execs <= 1 + tx.copies:
                    lab = "network_copy"
                else:
                    lab = "unexplained"
                labels[e["slot"]] = lab
                if lab == "retransmit_timeout":
                    stats["rt_checked"] += 1
                    # independent of the walk: the previous client transmission of this XID on this socket, by stamp
                    prev = max((u.t for u in txs if u.t < tx.t), default=None)
                    if prev is None or not interval or tx.t - prev < 0.95 * interval * 1e6:
                        stats["rt_violations"] += 1
                    else:
                        gap = (tx.t - prev) / 1e6
                        stats["rt_under_1x"] += gap < interval
                        GAPS.append(gap / interval)
        else:
            stats["count_fallback_xids"] += 1
            offered = {"network_copy": 0, "retransmit_timeout": 0, "stale_reply_resend": 0}
            total = -1
            for tx in txs:
                total += 1 + tx.copies
                offered["network_copy"] += tx.copies
                if tx.reason in offered:
                    offered[tx.reason] += 1
            lost = total - (len(es) - 1)
            left = len(extra)
            for e in extra:
                labels[e["slot"]] = "unexplained"
            k = 0
            for reason in ("network_copy", "retransmit_timeout", "stale_reply_resend"):
                g = min(left, max(0, offered[reason] - lost))
                if OPTS["fallback"] == "once":      # alternative reading: lost taken off once, in order
                    g = min(left, max(0, offered[reason] - lost))
                    lost = max(0, lost - offered[reason])
                for _ in range(g):
                    labels[extra[k]["slot"]] = reason
                    k += 1
                left -= g
                if reason == "retransmit_timeout" and g:
                    stats["rt_unchecked_fallback"] += g
    # 5. the counts and cascades
    first_cause = {}
    for key, es in percall.items():
        for e in es[1:]:
            lab = labels[e["slot"]]
            c[lab] += 1
            if OPTS.get("start") == "last": first_cause[key] = lab
            else: first_cause.setdefault(key, lab)
    starts = {k: 0 for k in KEYS}
    cascades = longest = 0
    for cid, calls in clients.items():
        run = []
        for seq in sorted(calls) + [None]:
            if seq is not None and len(percall.get((cid, seq), ())) > 1 and (not run or run[-1] == seq - 1):
                run.append(seq)
                continue
            if len(run) >= 2:
                cascades += 1
                longest = max(longest, len(run))
                starts[first_cause[(cid, run[0])]] += 1
            run = [seq] if seq is not None and len(percall.get((cid, seq), ())) > 1 else []
    c["cascades"], c["longest_cascade"], c["cascade_starts"] = cascades, longest, starts
    c["capture_packets"], c["capture_drops"] = packets, drops
    c["extra_executions"] = sum(len(es) - 1 for es in percall.values())
    return c


def main(argv):
    runs = []
    for a in argv:
        if a.startswith("--gap-ms="):
            v = a.split("=", 1)[1]
            OPTS["gap_ms"] = None if v == "none" else float(v)
        elif a.startswith("--over-b="):
            OPTS["over_b"] = a.split("=", 1)[1]
        elif a.startswith("--opt="):
            k, v = a[6:].split("=", 1)
            OPTS[k] = type(OPTS[k])(v)
        elif a == "--verbose":
            OPTS["verbose"] = True
        else:
            runs.append(a)
    if not runs:
        print(__doc__)
        sys.exit(2)
    cols = KEYS + ["cascades", "longest_cascade"]
    short = ["copy", "rexmit", "stale", "lib", "app", "unexpl", "casc", "longest"]
    print("%-9s %-4s %-2s " % ("run", "cell", "tr") + " ".join("%17s" % s for s in short) + "  starts  ok")
    n = m = 0
    per_key = {k: 0 for k in cols + ["cascade_starts", "capture"]}
    total = {"rt_checked": 0, "rt_violations": 0, "rt_under_1x": 0, "rt_unchecked_fallback": 0}
    viol = []
    for run in runs:
        for line in open(os.path.join(run, "trials.jsonl")):
            rec = json.loads(line)
            tdir = os.path.join(run, "cells", os.path.basename(os.path.dirname(rec["trial_dir"])),
                                "trial-%d" % rec["trial"])
            if not os.path.exists(os.path.join(tdir, "wire.bin")):
                continue
            stats = {k: 0 for k in ("orphan_copies", "calls_over_B", "owed_paid", "tx_after_call_over",
                                    "d3_further_back", "d3_drained", "d3_owed", "xid_never_sent",
                                    "gap_fallback", "count_fallback_xids", "extra_on_first_tx",
                                    "rt_checked", "rt_violations", "rt_unchecked_fallback", "rt_under_1x")}
            mine = trial_causes(tdir, stats)
            proj = rec["causes"]
            m += 1
            same_all = True
            cells = []
            for k in cols:
                same = proj.get(k) == mine[k]
                per_key[k] += same
                same_all &= same
                cells.append("%8s/%-8s" % (proj.get(k), mine[k]) + ("" if same else "*"))
            s_ok = proj.get("cascade_starts") == mine["cascade_starts"]
            per_key["cascade_starts"] += s_ok
            cap_ok = proj.get("capture_packets") == mine["capture_packets"] and proj.get("capture_drops") == mine["capture_drops"]
            per_key["capture"] += cap_ok
            same_all &= s_ok and cap_ok
            n += same_all
            print("%-9s %-4s %-2d " % (os.path.basename(run.rstrip("/")), os.path.basename(os.path.dirname(rec["trial_dir"]))[:3], rec["trial"])
                  + " ".join(cells) + ("  ok   " if s_ok else "  DIFF ") + ("yes" if same_all else "NO"))
            if not s_ok or OPTS["verbose"]:
                print("      starts project", {k: v for k, v in proj["cascade_starts"].items() if v},
                      "mine", {k: v for k, v in mine["cascade_starts"].items() if v})
            if OPTS["verbose"]:
                print("      extra", rec["classes"]["extra_executions"], "/", mine["extra_executions"],
                      {k: v for k, v in stats.items() if v})
            for k in total:
                total[k] += stats[k]
            viol.append("%s/%s/%d:%d" % (os.path.basename(run.rstrip("/")), os.path.basename(os.path.dirname(rec["trial_dir"]))[:3],
                                         rec["trial"], stats["rt_violations"]))
    print("per key matches (of %d):" % m, per_key)
    print("wire rule: %d executions labelled retransmit_timeout by stamp match, %d left < 0.95 x interval after the previous transmission"
          % (total["rt_checked"], total["rt_violations"]))
    print("wire rule per trial (run/cell/trial:violations):", " ".join(viol))
    if GAPS:
        print("timer-resend gaps / interval: min %.3f max %.3f; %d under 1.0 x interval; %d retransmit_timeout labels from the counts (no stamp match, unchecked)"
              % (min(GAPS), max(GAPS), total["rt_under_1x"], total["rt_unchecked_fallback"]))
    print("%d of %d trials match exactly" % (n, m))
    sys.exit(2 if m == 0 else 0 if n == m else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
