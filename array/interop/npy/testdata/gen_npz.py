# Regenerates the NumPy-written .npz and bool files the npy tests read:
#   cd array/interop/npy/testdata && /usr/bin/python3 gen_npz.py
# The arrays follow gen.py's pattern; bool arrays hold k % 3 == 0 at C-order
# index k.
import numpy as np


def pattern(descr, shape):  # gen.py's (importing gen.py would rerun it)
    k = np.arange(int(np.prod(shape)), dtype=np.int64)
    if descr == 'bf16':
        f = ((k * 3 - 5) / 4).astype('<f4')
        return (f.view('<u4') >> 16).astype('<u2').view('|V2').reshape(shape)
    dt = np.dtype(descr)
    if dt.kind == 'u':
        v = k * 3 + 1
    elif dt.kind == 'i':
        v = k * 3 - 5
    else:
        v = (k * 3 - 5) / 4
    return v.astype(dt).reshape(shape)


def mask(shape):
    k = np.arange(int(np.prod(shape)), dtype=np.int64)
    return (k % 3 == 0).reshape(shape)


members = {
    'f4': pattern('<f4', (2, 3, 4)),
    'i8_fortran': np.asfortranarray(pattern('<i8', (3, 5))),
    'mask': mask((3, 5)),
    'mask_fortran': np.asfortranarray(mask((4, 2, 3))),
    'scalar': pattern('<f8', ()),
    'empty': pattern('<u2', (0, 3)),
    'bf16': pattern('bf16', (2, 3)),
}
np.savez('savez.npz', **members)
np.savez_compressed('savez_compressed.npz', **members)
np.save('c_bool.npy', mask((2, 3, 4)))
np.save('f_bool.npy', np.asfortranarray(mask((2, 3, 4))))
