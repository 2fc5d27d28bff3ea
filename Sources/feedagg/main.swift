print("feedagg")
