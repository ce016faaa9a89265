"""Stage 2, the data: SGF's grammar (:mod:`~mockgo.data.sgf_syntax`), game
records and their main lines (:mod:`~mockgo.data.sgf_reader`, written by
:mod:`~mockgo.data.sgf_writer`, many at a time from
:mod:`~mockgo.data.archives`), whole game trees
with their variations (:mod:`~mockgo.data.gametree`), the KGS download
(:mod:`~mockgo.data.download`), training datasets of encoded positions
(:mod:`~mockgo.data.dataset`) and atomic, resumable files
(:mod:`~mockgo.data.files`)."""
