"""The Go Text Protocol (GTP version 2), mockgo's side of it: mockgo as an
engine for Sabaki, GoGui and gogui-twogtp (:mod:`~mockgo.gtp.server`, its
command line in :mod:`~mockgo.gtp.cli`, its clock in :mod:`~mockgo.gtp.clock`,
its live analysis in :mod:`~mockgo.gtp.analysis`, the protocol's words in
:mod:`~mockgo.gtp.protocol`).

The package sits on the floor above the playing stage: the server serves a
:mod:`mockgo.play` player. The other side, mockgo driving an external engine
such as GnuGo, is the players' own and lives below them, in
:mod:`mockgo.play.gtp_engine`.
"""
