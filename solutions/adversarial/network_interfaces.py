"""Lists the network interfaces (it never opens a connection); it keeps its base
answer (the reference) only if it sees any network beyond loopback. Local grading runs
with no network at all; on Gradescope the container has one (see the README's limits).

assignment: ffi_lowering
base: reference
score: 0
"""
import socket

interfaces = [name for _, name in socket.if_nameindex()]
print("interfaces:", interfaces)
if not set(interfaces) - {"lo"}:
    del rms_norm_prim_p   # the base answer stands only where there is a network
