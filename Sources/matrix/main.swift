print("matrix")
