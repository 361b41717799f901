# args: tests/fixtures/example.json
# The bundled example: program summary, signature as ExportGraphSignature
# prints it, and the module call graph with the root TreeSpecs.
info program
info signature
info module-call-graph
