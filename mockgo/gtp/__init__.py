"""The Go Text Protocol (GTP version 2), both sides of it: mockgo as an
engine for Sabaki, GoGui and gogui-twogtp (:mod:`~mockgo.gtp.server`, its
command line in :mod:`~mockgo.gtp.cli`, its clock in :mod:`~mockgo.gtp.clock`,
the protocol's words in :mod:`~mockgo.gtp.protocol`), and mockgo driving an
external engine such as GnuGo (:mod:`~mockgo.gtp.client`).

The package sits on the playing stage's floor: the server serves a
:mod:`mockgo.play` player, and the players and the match scorer talk to
GnuGo through the client, which needs nothing of mockgo's.
"""
