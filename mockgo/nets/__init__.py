"""Stage 3, the networks: Keras architectures (:mod:`~mockgo.nets.models`),
saving and loading them with what they were trained on (:mod:`~mockgo.nets.io`)
and batched, compiled prediction (:mod:`~mockgo.nets.inference`).

TensorFlow is imported by these modules: light commands (``mockgo gtp
--player random``) must not import them at start-up."""
