# Losses in bursts (Gilbert-Elliott): 1% chance to enter the bad state, 30%
# to leave it; in the bad state 50% of packets are lost (1-h), in the good
# state none (1-k = 0). Mean loss about 1.6%, in runs. Needs netem.
ge_p=1
ge_r=30
ge_1h=50
ge_1k=0
direction=both
