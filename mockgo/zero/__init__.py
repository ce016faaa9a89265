"""Stage 7, AlphaGo Zero: self-play with tree search, training on the search's
visit counts and the results, evaluation; MiniGo's loop in one resumable run
folder (notebook 04, ``mockgo zero``)."""
