"""Each assignment's pieces a mutant changes (generate.Piece): the traced function and each
host function of the reference answer, how its code computes, and the same math in another
library (the provenance mutants)."""
from autograder.authoring.mutants.generate import Piece

PIECES = {
    "pure_callback_doubler": [
        Piece("host_double", "np", same_math="np.asarray(jnp.asarray(arr) * 2)", host=True),
        Piece("pure_callback_doubler", "jnp", same_math="x * 2"),
    ],
}
