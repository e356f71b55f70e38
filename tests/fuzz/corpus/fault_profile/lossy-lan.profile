# A LAN with a flaky switch port: 1% of packets lost, both ways.
loss=1
direction=both
