print("pkg.test_main executed")
