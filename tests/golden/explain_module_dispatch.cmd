# args: -q tests/conformance/corpus/scenarios/multiple_graphs_dispatch__strict__preserve/program.pt2
# A torch-made program with n's signature preserved and three calls: n@1
# equals n (DEDUP merges it), n@2 differs (refused at %add_5); DISPATCH makes
# n one InterpreterModuleDispatcher over them. explain names each decision.
explain n@2
explain n
