"""Stage 2, the data: SGF game records (:mod:`~mockgo.data.records`), the KGS
download (:mod:`~mockgo.data.download`), training datasets of encoded positions
(:mod:`~mockgo.data.dataset`) and atomic, resumable files
(:mod:`~mockgo.data.files`)."""
