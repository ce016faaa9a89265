"""What defines a run of AlphaGo's recipe (:mod:`mockgo.learn.recipe`):
:class:`RecipeConfig`, the sizes of its stages, kept in the run's
``recipe.json``, and :data:`PRESETS`, those of ``mockgo recipe --preset``;
the settings alone, so that the notebooks' presets (:mod:`mockgo.presets`)
read them without importing the recipe."""

import dataclasses

from mockgo.go.features import ALPHAGO48

__all__ = ["PRESETS", "RecipeConfig"]


@dataclasses.dataclass(frozen=True)
class RecipeConfig:
    """The sizes of one recipe: the dataset (``max_games``: None for every
    game of the archives), the SL network (``layers`` x ``filters``) and its
    training (``train_seconds`` of training, in ``epochs`` epochs of a
    cosine schedule; ``validation_steps`` batches of validation an epoch)."""

    encoder: str = ALPHAGO48
    board_size: int = 19
    max_games: int | None = None
    layers: int = 13
    filters: int = 192
    batch_size: int = 1024
    learning_rate: float = 1e-3
    train_seconds: float = 330.0
    epochs: int = 12
    validation_steps: int = 40
    precision: str = "auto"
    seed: int = 0
    value_games: int = 200_000
    value_batch: int = 512
    value_layers: int = 13
    value_filters: int = 192
    value_epochs: int = 10
    value_batch_size: int = 256
    value_symmetries: bool = False


#: The recipe's settings by ``--preset``: ``gpu``, ``cpu``, and ``tiny`` (seconds, for tests).
PRESETS = {
    "gpu": RecipeConfig(),
    "cpu": RecipeConfig(layers=6, filters=64, batch_size=128, train_seconds=3 * 3600, epochs=10,
                        validation_steps=200, value_games=8000, value_batch=256, value_layers=6,
                        value_filters=64, value_symmetries=True),
    "tiny": RecipeConfig(max_games=100, layers=2, filters=8, batch_size=64, train_seconds=10,
                         epochs=2, validation_steps=2, value_games=40, value_batch=20,
                         value_layers=2, value_filters=4, value_epochs=2, value_batch_size=16,
                         value_symmetries=True),
}
