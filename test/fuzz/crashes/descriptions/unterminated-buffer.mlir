// SVE SDOT Zda.S, Zn.B, Zsym_nameth ag2nosti[: the semantics dWscribndn  ,k).
func..nxv8linalg.sqr