def checker(version):
    return f"checker for draft {version}"
