# args: -q tests/conformance/corpus/scenarios/tied_embeddings__nonstrict/program.pt2
# Tied weights (issue 12): from the archive exdb knows emb.weight and
# head.weight are one tensor (its weights config), sinks it in both modules
# as torch does, and lint has nothing to say; from the bare JSON
# (tests/fixtures/tied_embeddings.json: the archive's models/model.json) it
# cannot know, keeps a placeholder and says what it assumed.
print module emb
lint
load tests/fixtures/tied_embeddings.json
print module emb
lint
