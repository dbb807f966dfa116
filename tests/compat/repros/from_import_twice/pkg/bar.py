print("pkg.bar executed")
raise AttributeError("broken at import")
