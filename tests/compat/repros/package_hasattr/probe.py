import pkg

print("hasattr from a rewritten module that imports pkg:", hasattr(pkg, "test_main"))
