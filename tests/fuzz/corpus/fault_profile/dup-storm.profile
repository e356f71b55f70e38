# Duplication only: 5% of packets arrive twice, both ways. The case that
# makes a Sun RPC/UDP client without a duplicate request cache run calls twice.
dup=5
direction=both
