# Levy's bad network: 5% loss and 5% duplication, both ways.
loss=5
dup=5
direction=both
