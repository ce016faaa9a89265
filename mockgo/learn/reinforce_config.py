"""What defines a REINFORCE run (:class:`ReinforceConfig`, kept in the run
folder's ``state.json``): the settings alone, so that notebook 03's presets
(:mod:`mockgo.presets`) name them without importing the learner
(:mod:`mockgo.learn.reinforce`)."""

import dataclasses
import json
from pathlib import Path

from mockgo.go.features import ALPHAGO48

__all__ = ["ReinforceConfig"]


@dataclasses.dataclass
class ReinforceConfig:
    """The settings of a REINFORCE run (kept in its state.json; a run
    resumes only with the same ones).

    ``games``: n, the games of a mini-batch (AlphaGo: 128); ``pool_every``:
    K, iterations between additions to the pool (AlphaGo: 500);
    ``learning_rate``: alpha (AlphaGo: 0.001); ``eval_games`` against the
    SL policy every ``eval_every`` iterations (0: never). ``partners``:
    sparring partners, fixed networks of any architecture and encoder
    (``.keras`` files or shipped names), met in a share ``partner_share``
    of the iterations (:mod:`mockgo.learn.reinforce` says how)."""

    size: int = 19
    encoder: str = ALPHAGO48
    games: int = 128
    learning_rate: float = 0.001
    pool_every: int = 10
    temperature: float = 1.0
    eval_games: int = 64
    eval_every: int = 1
    komi: float = 7.5
    max_moves: int | None = None
    seed: int = 0
    chunk: int = 512
    partners: tuple = ()
    partner_share: float = 0.0

    def __post_init__(self):
        if isinstance(self.partners, (str, Path)):
            raise TypeError(f"partners is a list of network files or shipped names, "
                            f"not one: [{str(self.partners)!r}]")
        self.partners = tuple(str(p) for p in self.partners)
        if not 0.0 <= self.partner_share <= 1.0:
            raise ValueError(f"partner_share is a probability, from 0 to 1, not "
                             f"{self.partner_share!r}")
        if bool(self.partners) != (self.partner_share > 0):
            raise ValueError(f"partners and partner_share go together: {len(self.partners)} "
                             f"partners with partner_share {self.partner_share} (give both, "
                             f"or neither)")

    def to_json(self):
        """The settings as state.json keeps them (lists for tuples)."""
        return json.loads(json.dumps(dataclasses.asdict(self)))
