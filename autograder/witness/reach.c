/* A keyed digest of everything reachable from each module's namespace, at C speed: the
 * first pass of autograder/witness/observable.py's comparison of two worlds (issue 48).
 *
 * Written by hand because the same walk in Python (observable.Deep) costs about 3.5 us per
 * object, and a process with JAX and SciPy holds some 150,000 objects: 0.5 s per world.
 * This walk only has to be at least as sensitive as Deep: every module whose digest differs
 * between the two worlds is then compared again by Deep itself, global by global, which
 * decides. So where it is unsure it reads more (every reference the garbage collector's
 * traversal reports, dict keys and values, an object's attribute dict, addresses where Deep
 * reads a repr), never less, and it hands every type whose state Deep reads through Python
 * (`python(type)` says how: arrays, C-held state such as a random generator's, reprs of the
 * standard library's C types) to Deep's own visit (`visit`).
 *
 *   namespaces(spaces, leave_out, met, key, students, python, visit, budget) -> (digests, visits left)
 *
 * `spaces`: module namespaces (dicts), each with the set of its names `leave_out` (entries
 * naming a module are left out too: a module is walked as a namespace of its own); `met`:
 * objects told by address wherever they are reached (the modules themselves);
 * `students`: the names of the student's modules (walked into when reached, like their
 * classes; a library's module is told by its name); `key`: 16 bytes.
 *
 * Runs in a forked copy of the witness (one thread, nothing else running), reading objects
 * through borrowed references; what `visit` returns is kept alive until the walk ends.
 * Objects met again are told by address (the same in two forks of one process); objects met
 * first by their content. The digest is SipHash-1-3 under a key the witness draws at random
 * for each comparison: a notebook cannot aim a change at a collision.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* ---- SipHash-1-3 (CPython's own string hash) over 64-bit words ---- */

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND(v0, v1, v2, v3)                                                   \
    do {                                                                           \
        v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);                  \
        v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                                     \
        v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                                     \
        v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);                  \
    } while (0)

typedef struct { uint64_t v[4]; uint64_t n; } Hash;

static void hash_init(Hash *h, uint64_t k0, uint64_t k1) {
    h->v[0] = k0 ^ 0x736f6d6570736575ULL; h->v[1] = k1 ^ 0x646f72616e646f6dULL;
    h->v[2] = k0 ^ 0x6c7967656e657261ULL; h->v[3] = k1 ^ 0x7465646279746573ULL;
    h->n = 0;
}

static inline void word(Hash *h, uint64_t m) {
    h->v[3] ^= m;
    SIPROUND(h->v[0], h->v[1], h->v[2], h->v[3]);
    h->v[0] ^= m;
    h->n++;
}

static uint64_t hash_final(Hash *h) {
    word(h, h->n);
    h->v[2] ^= 0xff;
    for (int i = 0; i < 3; i++) SIPROUND(h->v[0], h->v[1], h->v[2], h->v[3]);
    return h->v[0] ^ h->v[1] ^ h->v[2] ^ h->v[3];
}

static void bytes(Hash *h, const void *data, Py_ssize_t n) {
    const unsigned char *p = data;
    word(h, (uint64_t)n);
    for (; n >= 8; n -= 8, p += 8) { uint64_t m; memcpy(&m, p, 8); word(h, m); }
    if (n > 0) { uint64_t m = 0; memcpy(&m, p, (size_t)n); word(h, m); }
}

/* ---- the objects seen: an open-addressing set of addresses ---- */

typedef struct { uintptr_t *slots; size_t mask, used; } Seen;

static int seen_add(Seen *s, uintptr_t p) {   /* 1: new, 0: seen before, -1: no memory */
    if ((s->used + 1) * 2 > s->mask + 1) {
        size_t size = (s->mask + 1) * 2;
        uintptr_t *slots = PyMem_Calloc(size, sizeof(uintptr_t));
        if (!slots) return -1;
        for (size_t i = 0; i <= s->mask; i++) {
            uintptr_t q = s->slots[i];
            if (!q) continue;
            size_t j = (q >> 4) * 0x9E3779B97F4A7C15ULL & (size - 1);
            while (slots[j]) j = (j + 1) & (size - 1);
            slots[j] = q;
        }
        PyMem_Free(s->slots);
        s->slots = slots;
        s->mask = size - 1;
    }
    size_t j = (p >> 4) * 0x9E3779B97F4A7C15ULL & s->mask;
    while (s->slots[j]) {
        if (s->slots[j] == p) return 0;
        j = (j + 1) & s->mask;
    }
    s->slots[j] = p;
    s->used++;
    return 1;
}

/* ---- the stack of objects to visit (borrowed references) ---- */

typedef struct { PyObject **items; Py_ssize_t n, cap; } Stack;

static int push(Stack *s, PyObject *o) {
    if (!o) return 0;
    if (s->n == s->cap) {
        Py_ssize_t cap = s->cap ? s->cap * 2 : 4096;
        PyObject **items = PyMem_Realloc(s->items, (size_t)cap * sizeof(PyObject *));
        if (!items) return -1;
        s->items = items;
        s->cap = cap;
    }
    s->items[s->n++] = o;
    return 0;
}

/* Push a run of children so that they are visited in their order. */
static void reverse_from(Stack *s, Py_ssize_t start) {
    for (Py_ssize_t i = start, j = s->n - 1; i < j; i++, j--) {
        PyObject *t = s->items[i]; s->items[i] = s->items[j]; s->items[j] = t;
    }
}

/* The garbage collector's traversal, but the attribute dict already pushed: a dict this walk
 * made from an object's inline values sits at another address in each world. */
typedef struct { Stack *stack; PyObject *dict; } Traversal;

static int visit_push(PyObject *o, void *arg) {
    Traversal *t = arg;
    return o == t->dict ? 0 : push(t->stack, o);
}

/* ---- the walk ---- */

enum { T_STR = 1, T_INT, T_BIGINT, T_FLOAT, T_COMPLEX, T_BYTES, T_SINGLE, T_AGAIN, T_PY, T_DICT,
       T_SEQ, T_SET, T_MODULE, T_STUDENT_MODULE, T_CLASS, T_C_CLASS, T_FUNCTION, T_CODE, T_OBJECT,
       T_ATTRS, T_LEAF, T_BUDGET };

typedef struct {
    PyObject *students, *python, *visit, *types, *keep, *registry, *module, *skip[3];
    Seen seen;
    Stack stack;
    long budget;
} Walk;

/* How objects of `type` are read (reach.py's `how`): asked once per type. */
enum { READ_ALL = 0, READ_BY_PYTHON = 1, READ_ATTRIBUTES = 2 };

static int how(Walk *w, PyTypeObject *type) {
    PyObject *known = PyDict_GetItemWithError(w->types, (PyObject *)type);
    if (known) return (int)PyLong_AsLong(known);
    if (PyErr_Occurred()) return -1;
    PyObject *r = PyObject_CallOneArg(w->python, (PyObject *)type);
    if (!r) return -1;
    long mode = PyLong_AsLong(r);
    if (mode == -1 && PyErr_Occurred()) { Py_DECREF(r); return -1; }
    int err = PyDict_SetItem(w->types, (PyObject *)type, r);
    Py_DECREF(r);
    return err < 0 ? -1 : (int)mode;
}

static int is_key(PyObject *k, PyObject *name) {
    return k == name || (PyUnicode_CheckExact(k) && PyUnicode_GET_LENGTH(k) == PyUnicode_GET_LENGTH(name) &&
                         PyUnicode_Compare(k, name) == 0);
}

/* A dict's keys and values, in order; `library_class`: a library class's namespace, whose
 * __dict__, __weakref__ and __doc__ Deep leaves out. */
static int dict_items(Walk *w, Hash *h, PyObject *d, uint64_t tag, int library_class) {
    Py_ssize_t pos = 0, start = w->stack.n;
    PyObject *k, *v;
    word(h, tag);
    while (PyDict_Next(d, &pos, &k, &v)) {
        if (is_key(k, w->registry)) continue;  /* the warnings machinery's bookkeeping */
        if (library_class && (is_key(k, w->skip[0]) || is_key(k, w->skip[1]) || is_key(k, w->skip[2]))) continue;
        if (push(&w->stack, k) < 0 || push(&w->stack, v) < 0) return -1;
    }
    word(h, (uint64_t)(w->stack.n - start));   /* the entries walked: what delimits them */
    reverse_from(&w->stack, start);
    return 0;
}

static int step(Walk *w, Hash *h, PyObject *o) {
    PyTypeObject *t = Py_TYPE(o);
    if (t == &PyUnicode_Type) {
        word(h, T_STR);
        bytes(h, PyUnicode_DATA(o), PyUnicode_GET_LENGTH(o) * PyUnicode_KIND(o));
        return 0;
    }
    if (t == &PyLong_Type) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (!overflow) { word(h, T_INT); word(h, (uint64_t)v); return 0; }
        PyObject *b = PyNumber_ToBase(o, 16);
        if (!b) return -1;
        word(h, T_BIGINT);
        bytes(h, PyUnicode_DATA(b), PyUnicode_GET_LENGTH(b) * PyUnicode_KIND(b));
        Py_DECREF(b);
        return 0;
    }
    if (t == &PyFloat_Type) {
        double d = PyFloat_AS_DOUBLE(o); uint64_t m; memcpy(&m, &d, 8);
        word(h, T_FLOAT); word(h, m);
        return 0;
    }
    if (t == &PyComplex_Type) {
        Py_complex c = PyComplex_AsCComplex(o); uint64_t m[2]; memcpy(m, &c, 16);
        word(h, T_COMPLEX); word(h, m[0]); word(h, m[1]);
        return 0;
    }
    if (t == &PyBytes_Type) { word(h, T_BYTES); bytes(h, PyBytes_AS_STRING(o), PyBytes_GET_SIZE(o)); return 0; }
    if (o == Py_None || t == &PyBool_Type || o == Py_Ellipsis || o == Py_NotImplemented) {
        word(h, T_SINGLE); word(h, (uintptr_t)o);
        return 0;
    }
    int fresh = seen_add(&w->seen, (uintptr_t)o);
    if (fresh < 0) { PyErr_NoMemory(); return -1; }
    if (!fresh) { word(h, T_AGAIN); word(h, (uintptr_t)o); return 0; }
    if (--w->budget < 0) { word(h, T_BUDGET); return 0; }

    if (t == &PyDict_Type) {
        return dict_items(w, h, o, T_DICT, 0);
    } else if (t == &PyList_Type || t == &PyTuple_Type) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o), start = w->stack.n;
        PyObject **items = PySequence_Fast_ITEMS(o);
        word(h, T_SEQ); word(h, (uintptr_t)t); word(h, (uint64_t)n);
        for (Py_ssize_t i = 0; i < n; i++) if (push(&w->stack, items[i]) < 0) return -1;
        reverse_from(&w->stack, start);
        return 0;
    } else if (PyModule_CheckExact(o)) {
        PyObject *name = PyModule_GetNameObject(o);
        if (!name) { PyErr_Clear(); word(h, T_MODULE); return 0; }
        int student = PySet_Contains(w->students, name);
        word(h, T_MODULE);
        bytes(h, PyUnicode_DATA(name), PyUnicode_GET_LENGTH(name) * PyUnicode_KIND(name));
        Py_DECREF(name);
        if (student < 0) return -1;
        /* a library's module by its name (its globals are roots of their own); the student's, walked */
        return student ? dict_items(w, h, PyModule_GetDict(o), T_STUDENT_MODULE, 0) : 0;
    } else if (PyType_Check(o)) {
        PyTypeObject *c = (PyTypeObject *)o;
        if (!(c->tp_flags & Py_TPFLAGS_HEAPTYPE)) { word(h, T_C_CLASS); word(h, (uintptr_t)o); return 0; }
        PyObject *d = PyType_GetDict(c);   /* new reference (3.12+) */
        if (!d) return -1;
        if (PyList_Append(w->keep, d) < 0) { Py_DECREF(d); return -1; }
        Py_DECREF(d);
        PyObject *m = PyDict_GetItemWithError(d, w->module);
        if (!m && PyErr_Occurred()) return -1;
        int student = m && PyUnicode_Check(m) ? PySet_Contains(w->students, m) : 0;
        if (student < 0) return -1;
        word(h, T_CLASS);
        bytes(h, c->tp_name, (Py_ssize_t)strlen(c->tp_name));
        if (push(&w->stack, c->tp_bases) < 0) return -1;
        return dict_items(w, h, d, T_CLASS, !student);
    } else if (t == &PyFunction_Type) {
        PyFunctionObject *f = (PyFunctionObject *)o;
        Py_ssize_t start = w->stack.n;
        word(h, T_FUNCTION); word(h, (uintptr_t)f->func_code); word(h, (uintptr_t)f->func_qualname);
        if (push(&w->stack, f->func_defaults) < 0 || push(&w->stack, f->func_kwdefaults) < 0 ||
            push(&w->stack, f->func_dict) < 0) return -1;
        if (f->func_closure)   /* the cells' contents, as Deep reads them */
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(f->func_closure); i++) {
                PyObject *cell = PyTuple_GET_ITEM(f->func_closure, i);
                word(h, PyCell_GET(cell) ? 1 : 0);
                if (push(&w->stack, PyCell_GET(cell)) < 0) return -1;
            }
        reverse_from(&w->stack, start);
        return 0;
    } else if (PyCode_Check(o) || t == &PyWrapperDescr_Type || t == &PyMethodDescr_Type ||
               t == &PyMemberDescr_Type || t == &PyGetSetDescr_Type || t == &PyClassMethodDescr_Type) {
        word(h, T_CODE); word(h, (uintptr_t)o);   /* immutable: another one is another address */
        return 0;
    } else if (PyCapsule_CheckExact(o)) {   /* Deep: its repr, the name and the address */
        word(h, T_CODE); word(h, (uintptr_t)o); word(h, (uintptr_t)PyCapsule_GetName(o));
        return 0;
    } else if (t == &PyCFunction_Type || t == &PyCMethod_Type) {   /* Deep: its repr, the name and its self's address */
        PyCFunctionObject *f = (PyCFunctionObject *)o;
        word(h, T_CODE); word(h, (uintptr_t)f->m_ml); word(h, (uintptr_t)f->m_self);
        return 0;
    }
    /* Everything else Deep reads through Python goes to Deep. */
    int mode = how(w, t);
    if (mode < 0) return -1;
    if (mode == READ_BY_PYTHON) {   /* Deep's own visit: (token, children) */
        PyObject *r = PyObject_CallOneArg(w->visit, o);
        if (!r) return -1;
        if (PyList_Append(w->keep, r) < 0) { Py_DECREF(r); return -1; }
        Py_DECREF(r);
        PyObject *token, *children;
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2) { PyErr_SetString(PyExc_TypeError, "visit: (token, children)"); return -1; }
        token = PyTuple_GET_ITEM(r, 0);
        children = PyTuple_GET_ITEM(r, 1);
        if (!PyBytes_Check(token) || !PyList_Check(children)) { PyErr_SetString(PyExc_TypeError, "visit: (bytes, list)"); return -1; }
        word(h, T_PY);
        bytes(h, PyBytes_AS_STRING(token), PyBytes_GET_SIZE(token));
        Py_ssize_t start = w->stack.n;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(children); i++)
            if (push(&w->stack, PyList_GET_ITEM(children, i)) < 0) return -1;
        reverse_from(&w->stack, start);
        return 0;
    }

    /* Anything else: its type, its attribute dict (keys too: the traversal below reports
     * only values), and every reference the garbage collector's traversal reports; of a
     * library's object without slots, its attribute dict only, as Deep reads it (the
     * traversal would go into JAX's caches of compiled programs). */
    word(h, T_OBJECT); word(h, (uintptr_t)t);
    if (PyDict_Check(o) && dict_items(w, h, o, T_DICT, 0) < 0) return -1;   /* a subclass's items */
    Py_ssize_t start = w->stack.n;
    Traversal traversal = {&w->stack, NULL};
    if (t->tp_dictoffset != 0 || (t->tp_flags & Py_TPFLAGS_MANAGED_DICT)) {
        PyObject *d = PyObject_GenericGetDict(o, NULL);
        if (!d) PyErr_Clear();
        else {
            int err = PyList_Append(w->keep, d);
            Py_DECREF(d);
            if (err < 0 || push(&w->stack, d) < 0) return -1;
            traversal.dict = d;
        }
    }
    if (mode == READ_ATTRIBUTES) {
        word(h, T_ATTRS);
    } else if (PyType_IS_GC(t) && t->tp_traverse) {
        if (t->tp_traverse(o, visit_push, &traversal) < 0) return -1;
    } else {
        word(h, T_LEAF);
    }
    reverse_from(&w->stack, start);
    return 0;
}

/* One namespace's entries, but those in `leave_out` and those naming a module, pushed in order. */
static int namespace_items(Walk *w, Hash *h, PyObject *space, PyObject *leave_out) {
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    word(h, T_DICT);
    while (PyDict_Next(space, &pos, &k, &v)) {
        int out = PySet_Contains(leave_out, k);
        if (out < 0) return -1;
        if (out || PyModule_Check(v)) continue;
        if (push(&w->stack, k) < 0 || push(&w->stack, v) < 0) return -1;
    }
    word(h, (uint64_t)w->stack.n);
    reverse_from(&w->stack, 0);
    return 0;
}

static PyObject *namespaces(PyObject *self, PyObject *args) {
    PyObject *spaces, *leave_out, *met, *key, *students, *python, *visit;
    long budget;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!OOl", &PyList_Type, &spaces, &PyList_Type, &leave_out, &PyList_Type, &met,
                          &PyBytes_Type, &key, &PySet_Type, &students, &python, &visit, &budget))
        return NULL;
    if (PyBytes_GET_SIZE(key) != 16) { PyErr_SetString(PyExc_ValueError, "key: 16 bytes"); return NULL; }
    if (PyList_GET_SIZE(leave_out) != PyList_GET_SIZE(spaces)) { PyErr_SetString(PyExc_ValueError, "one leave_out per space"); return NULL; }
    uint64_t k[2];
    memcpy(k, PyBytes_AS_STRING(key), 16);
    Walk w = {students, python, visit, PyDict_New(), PyList_New(0), PyUnicode_InternFromString("__warningregistry__"),
              PyUnicode_InternFromString("__module__"),
              {PyUnicode_InternFromString("__dict__"), PyUnicode_InternFromString("__weakref__"),
               PyUnicode_InternFromString("__doc__")},
              {PyMem_Calloc(1 << 16, sizeof(uintptr_t)), (1 << 16) - 1, 0}, {NULL, 0, 0}, budget};
    PyObject *out = PyList_New(0), *result = NULL;
    if (!w.types || !w.keep || !w.registry || !w.module || !w.skip[0] || !w.skip[1] || !w.skip[2] ||
        !w.seen.slots || !out) { PyErr_NoMemory(); goto done; }
    Py_INCREF(spaces);   /* kept whole while walked */
    Py_INCREF(leave_out);
    /* every namespace and each object of `met` (the modules) met already: one reached through
     * another object (IPython's shell holds the notebook's) is told by address, its entries
     * walked as its own */
    Py_INCREF(met);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(spaces); i++)
        if (seen_add(&w.seen, (uintptr_t)PyList_GET_ITEM(spaces, i)) < 0) { PyErr_NoMemory(); goto done_spaces; }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(met); i++)
        if (seen_add(&w.seen, (uintptr_t)PyList_GET_ITEM(met, i)) < 0) { PyErr_NoMemory(); goto done_spaces; }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(spaces); i++) {
        PyObject *space = PyList_GET_ITEM(spaces, i), *skip = PyList_GET_ITEM(leave_out, i);
        if (!PyDict_Check(space) || !PyAnySet_Check(skip)) { PyErr_SetString(PyExc_TypeError, "a dict and a set"); goto done_spaces; }
        Hash h;
        hash_init(&h, k[0], k[1]);
        w.stack.n = 0;
        if (namespace_items(&w, &h, space, skip) < 0) goto done_spaces;
        while (w.stack.n) {
            PyObject *o = w.stack.items[--w.stack.n];
            if (step(&w, &h, o) < 0) goto done_spaces;
        }
        PyObject *d = PyLong_FromUnsignedLongLong(hash_final(&h));
        if (!d || PyList_Append(out, d) < 0) { Py_XDECREF(d); goto done_spaces; }
        Py_DECREF(d);
    }
    result = Py_BuildValue("(Ol)", out, w.budget);
done_spaces:
    if (!result && !PyErr_Occurred()) PyErr_NoMemory();
    Py_DECREF(spaces);
    Py_DECREF(leave_out);
    Py_DECREF(met);
done:
    Py_XDECREF(out);
    Py_XDECREF(w.types);
    Py_XDECREF(w.keep);
    Py_XDECREF(w.registry);
    Py_XDECREF(w.module);
    for (int i = 0; i < 3; i++) Py_XDECREF(w.skip[i]);
    PyMem_Free(w.seen.slots);
    PyMem_Free(w.stack.items);
    return result;
}

static PyMethodDef methods[] = {
    {"namespaces", namespaces, METH_VARARGS,
     "namespaces(spaces, leave_out, met, key, students, python, visit, budget) -> (digests, visits left)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_reach", NULL, -1, methods};

PyMODINIT_FUNC PyInit__reach(void) { return PyModule_Create(&module); }
