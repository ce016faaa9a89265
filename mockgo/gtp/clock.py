"""A GTP engine's clock: one player's time under GTP's Canadian byo-yomi
(``time_settings``, ``time_left``), run by the engine from the time its
moves take, and the share of it the next move may spend
(:meth:`GameClock.budget`). :mod:`mockgo.gtp.server` keeps one a colour.
"""

#: Seconds kept back from every move's budget: the controller's and the network's
#: delays, so that a move planned to the limit still arrives in time.
CLOCK_MARGIN = 0.5


class GameClock:
    """One player's clock under GTP's Canadian byo-yomi (GTP 2, section
    4.2): ``settings`` are ``time_settings``' (main time, byo-yomi time,
    byo-yomi stones). ``seconds`` are left, and ``stones`` to play in the
    present byo-yomi period (0 while main time runs). The engine runs it
    itself, move by move (:meth:`spend`), since a controller need not send
    ``time_left`` (Sabaki sends none); a ``time_left`` sets it (:meth:`set`).
    """

    def __init__(self, settings):
        main_time, self.period, self.period_stones = settings
        self.seconds, self.stones = float(main_time), 0

    @property
    def unlimited(self):
        """GTP's "no time limits": byo-yomi time with no stones."""
        return self.period > 0 and self.period_stones == 0

    def set(self, seconds, stones):
        """What ``time_left`` says: seconds left, stones left in the period."""
        self.seconds, self.stones = float(seconds), int(stones)

    def spend(self, elapsed):
        """A move of this player that took ``elapsed`` seconds. When main
        time runs out during it, the rest comes off the first byo-yomi
        period and the move is that period's first stone; when a period's
        stones are all played, a new period begins."""
        self.seconds -= elapsed
        if self.stones == 0:
            if self.seconds >= 0 or self.period_stones == 0:
                return  # still in main time, or absolute time
            self.seconds, self.stones = self.period + self.seconds, self.period_stones
        self.stones -= 1
        if self.stones == 0:
            self.seconds, self.stones = float(self.period), self.period_stones

    def budget(self, move_number, points):
        """The seconds the next move may take (None: no limit).
        ``move_number``: moves played so far; ``points``: the board's.

        In byo-yomi the period's time is shared out over its stones left. In
        main time it is shared out over the player's own moves still to
        come, estimated as half of three quarters of the board less the
        moves played, and at least 10; when byo-yomi follows, a move may
        always take a byo-yomi stone's share. Each budget keeps
        :data:`CLOCK_MARGIN` back, and is at least 0.05 s."""
        if self.unlimited:
            return None
        if self.stones > 0:
            budget = self.seconds / self.stones
        else:
            budget = self.seconds / max(10.0, (0.75 * points - move_number) / 2)
            if self.period_stones > 0:
                budget = max(budget, self.period / self.period_stones)
        return max(0.05, budget - CLOCK_MARGIN)

