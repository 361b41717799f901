# args: -q tests/fixtures/legacy_export.zip
# the legacy export zip (serialized_exported_program.json and version, as
# torch.export.save wrote before the pt2 archive): loaded and described.
info program
