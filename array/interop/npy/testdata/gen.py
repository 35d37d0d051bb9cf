# Regenerates the NumPy-written files the npy tests read:
#   cd array/interop/npy/testdata && /usr/bin/python3 gen.py
# Element k (C order) of every array holds k*3+1 for unsigned types, k*3-5
# for signed ones and (k*3-5)/4 for floats; bf16 holds the bfloat16 bits of
# that float as the 2-byte void dtype |V2, as ml_dtypes' bfloat16 saves.
import numpy as np

SHAPE = (2, 3, 4)
DTYPES = ['|i1', '<i2', '<i4', '<i8', '|u1', '<u2', '<u4', '<u8', '<f2', '<f4', '<f8']


def pattern(descr, shape):
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


def name(descr):
    return descr if descr == 'bf16' else descr[1:]


for d in DTYPES + ['bf16']:
    a = pattern(d, SHAPE)
    np.save('c_%s.npy' % name(d), a)
    np.save('f_%s.npy' % name(d), np.asfortranarray(a))

np.save('be_f8.npy', pattern('>f8', SHAPE))
np.save('be_i4_f.npy', np.asfortranarray(pattern('>i4', (3, 5))))
np.save('scalar_f4.npy', pattern('<f4', ()))
np.save('vec_u2.npy', pattern('<u2', (7,)))
np.save('empty_i2.npy', np.zeros((0, 3), dtype='<i2'))
with open('v2_u1.npy', 'wb') as f:
    np.lib.format.write_array(f, pattern('|u1', (3, 2)), version=(2, 0))
np.save('bad_bool.npy', np.zeros((2,), dtype=bool))
np.save('bad_c16.npy', np.zeros((2,), dtype='<c16'))
np.save('bad_U3.npy', np.array(['ab', 'c']))
np.save('bad_struct.npy', np.zeros((2,), dtype=[('x', '<f4'), ('y', '<i2')]))
