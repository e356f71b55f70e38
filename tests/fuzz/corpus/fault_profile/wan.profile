# A long-haul path: 40 ms each way with 5 ms jitter, a little loss and
# reordering. Needs netem (host or uml-netem): nftables cannot delay.
delay_ms=40
jitter_ms=5
loss=0.5
reorder=1
direction=both
