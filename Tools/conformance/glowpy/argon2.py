"""Argon2id, version 0x13, in pure Python, written from RFC 9106 (the spec's AUTH-11).

No Argon2 library is used: only `hashlib.blake2b` for BLAKE2b (RFC 7693). The sections of RFC 9106
followed are 3.2 (the initial hash H0 and the block layout), 3.3 (the variable-length hash H'),
3.4 (indexing: Argon2id's data-independent addresses in the first half of the first pass and
data-dependent ones afterwards, lanes, 4 slices, the reference set and the mapping of J1), 3.5
(the compression function G) and 3.6 (the permutation P built on BlaMka's GB).

A block of 1 KiB is a list of 128 unsigned 64-bit integers (little-endian words), masked with
MASK64 wherever a sum or a shift can exceed 64 bits. The compression function is generated once as
straight-line Python (16 rounds of P, 8 GB each) and compiled, which makes it several times faster
than a loop; the generated text is the same GB and P as written below in `_gb_lines`.

`argon2id(password, salt, secret, ad, m, t, p, tag_length)` takes bytes and integers and does not
check the bounds of AUTH-13: its caller does (auth.py). RFC 9106's own requirements that the
function needs to be well-defined (p >= 1, t >= 1, m >= 8p, 4 <= T) are assumed.
"""
import hashlib
import struct

VERSION = 0x13          # 19
TYPE_ARGON2ID = 2       # y in RFC 9106 section 3.2
MASK64 = 0xFFFFFFFFFFFFFFFF
MASK32 = 0xFFFFFFFF
WORDS = 128             # 64-bit words in a 1 KiB block
BLOCK_BYTES = 1024
SYNC_POINTS = 4         # slices per pass
ADDRESSES_PER_BLOCK = 128

_BLOCK = struct.Struct('<128Q')


def _le32(n):
    return struct.pack('<I', n)


def blake2b(data, size=64):
    """H^size (RFC 9106 section 3.1): BLAKE2b with a digest of `size` bytes, no key."""
    return hashlib.blake2b(data, digest_size=size).digest()


def h_prime(data, size):
    """H' (RFC 9106 section 3.3): the variable-length hash of `size` bytes."""
    if size <= 64:
        return blake2b(_le32(size) + data, size)
    r = (size + 31) // 32 - 2
    v = blake2b(_le32(size) + data)
    out = [v[:32]]
    for _ in range(2, r + 1):
        v = blake2b(v)
        out.append(v[:32])
    out.append(blake2b(v, size - 32 * r))
    return b''.join(out)


def initial_hash(password, salt, secret, ad, m, t, p, tag_length):
    """H0 (RFC 9106 section 3.2, step 1)."""
    parts = [_le32(p), _le32(tag_length), _le32(m), _le32(t), _le32(VERSION), _le32(TYPE_ARGON2ID)]
    for value in (password, salt, secret, ad):
        parts.append(_le32(len(value)))
        parts.append(value)
    return blake2b(b''.join(parts))


# ---- The compression function G (RFC 9106 sections 3.5 and 3.6), generated as straight-line code

def _gb_lines(a, b, c, d):
    """GB(a, b, c, d) of RFC 9106 section 3.6 on four local variables: BlaMka's multiply-add
    a + b + 2 * trunc(a) * trunc(b), and right rotations by 32, 24, 16 and 63, all mod 2^64."""
    lines = []
    for (x, y, z, rotation_w, rotation_y) in ((a, b, d, 32, 24), (a, b, d, 16, 63)):
        # x = x + y + 2*trunc(x)*trunc(y); z = (z ^ x) >>> r1; c = c + z + 2*trunc(c)*trunc(z); y = (y ^ c) >>> r2
        lines.append(f'{x} = ({x} + {y} + 2 * ({x} & 0xFFFFFFFF) * ({y} & 0xFFFFFFFF)) & 0xFFFFFFFFFFFFFFFF')
        lines.append(f'{z} ^= {x}; {z} = (({z} >> {rotation_w}) | ({z} << {64 - rotation_w})) & 0xFFFFFFFFFFFFFFFF')
        lines.append(f'{c} = ({c} + {z} + 2 * ({c} & 0xFFFFFFFF) * ({z} & 0xFFFFFFFF)) & 0xFFFFFFFFFFFFFFFF')
        lines.append(f'{y} ^= {c}; {y} = (({y} >> {rotation_y}) | ({y} << {64 - rotation_y})) & 0xFFFFFFFFFFFFFFFF')
    return lines


def _permutation_lines(indices):
    """P (RFC 9106 section 3.6) on the 16 words of `indices` (8 registers of 16 bytes, register S_i
    being words 2i and 2i+1): GB on the columns of the 4x4 matrix of words, then on its diagonals."""
    names = [f'v{k}' for k in range(16)]
    lines = [', '.join(names) + ' = ' + ', '.join(f'q[{i}]' for i in indices)]
    for a, b, c, d in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
                       (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
        lines += _gb_lines(names[a], names[b], names[c], names[d])
    lines.append(', '.join(f'q[{i}]' for i in indices) + ' = ' + ', '.join(names))
    return lines


def _compression_source():
    """G(X, Y) (RFC 9106 section 3.5): R = X xor Y, viewed as an 8x8 matrix of 16-byte registers
    R_0 ... R_63; P on each row (registers 8i ... 8i+7, words 16i ... 16i+15), then on each column
    (registers j, j+8, ..., j+56, words 2j, 2j+1, 2j+16, 2j+17, ...); the result is Z xor R."""
    lines = ['def compress(x, y):',
             '    r = [a ^ b for a, b in zip(x, y)]',
             '    q = r[:]']
    for row in range(8):
        lines += ['    ' + line for line in _permutation_lines([16 * row + k for k in range(16)])]
    for column in range(8):
        indices = []
        for register in range(column, 64, 8):
            indices += [2 * register, 2 * register + 1]
        lines += ['    ' + line for line in _permutation_lines(indices)]
    lines.append('    return [a ^ b for a, b in zip(q, r)]')
    return '\n'.join(lines) + '\n'


_namespace = {}
exec(compile(_compression_source(), '<argon2 G>', 'exec'), _namespace)
compress = _namespace['compress']
compress.__doc__ = 'G(X, Y) of RFC 9106 section 3.5 on blocks of 128 64-bit words.'

_ZERO = [0] * WORDS


def _address_block(counter_input):
    """The next block of pseudo-random addresses (RFC 9106 section 3.4.1.2): G(ZERO, G(ZERO, Z))."""
    return compress(_ZERO, compress(_ZERO, counter_input))


# ---- Argon2id

def argon2id(password, salt, secret, ad, m, t, p, tag_length):
    """The Argon2id tag of `tag_length` bytes (RFC 9106 section 3.2, steps 1 ... 10)."""
    h0 = initial_hash(password, salt, secret, ad, m, t, p, tag_length)
    blocks_total = 4 * p * (m // (4 * p))                   # m'
    lane_length = blocks_total // p                          # q
    segment_length = lane_length // SYNC_POINTS
    memory = [None] * blocks_total                           # lane l, column j at l * q + j

    for lane in range(p):                                    # steps 3 and 4
        for column in (0, 1):
            data = h_prime(h0 + _le32(column) + _le32(lane), BLOCK_BYTES)
            memory[lane * lane_length + column] = list(_BLOCK.unpack(data))

    for pass_number in range(t):
        for slice_number in range(SYNC_POINTS):
            for lane in range(p):
                _fill_segment(memory, pass_number, slice_number, lane, p, t, blocks_total,
                              lane_length, segment_length)

    final = memory[lane_length - 1]                          # step 9: xor of the last column
    for lane in range(1, p):
        final = [a ^ b for a, b in zip(final, memory[lane * lane_length + lane_length - 1])]
    return h_prime(_BLOCK.pack(*final), tag_length)         # step 10


def _fill_segment(memory, pass_number, slice_number, lane, lanes, passes, blocks_total,
                  lane_length, segment_length):
    """One segment: the blocks of one slice of one lane (RFC 9106 sections 3.2 and 3.4)."""
    # Argon2id: data-independent addressing (Argon2i) in slices 0 and 1 of the first pass,
    # data-dependent (Argon2d) everywhere else.
    independent = pass_number == 0 and slice_number < SYNC_POINTS // 2
    counter_input = None
    addresses = None
    if independent:
        counter_input = [0] * WORDS
        counter_input[0:6] = [pass_number, lane, slice_number, blocks_total, passes, TYPE_ARGON2ID]
    start = 0
    if pass_number == 0 and slice_number == 0:
        start = 2                                            # B[i][0] and B[i][1] are made from H0
    base = lane * lane_length
    for index in range(start, segment_length):
        column = slice_number * segment_length + index
        previous = memory[base + (column - 1 if column > 0 else lane_length - 1)]
        if independent:
            if addresses is None or index % ADDRESSES_PER_BLOCK == 0:
                counter_input[6] += 1                        # the counter i starts at 1
                addresses = _address_block(counter_input)
            pseudo_random = addresses[index % ADDRESSES_PER_BLOCK]
        else:
            pseudo_random = previous[0]
        j1 = pseudo_random & MASK32
        j2 = pseudo_random >> 32
        reference_lane = lane if pass_number == 0 and slice_number == 0 else j2 % lanes
        same_lane = reference_lane == lane
        reference_column = _reference_column(pass_number, slice_number, index, j1, same_lane,
                                             lane_length, segment_length)
        reference = memory[reference_lane * lane_length + reference_column]
        block = compress(previous, reference)
        if pass_number > 0:                                  # version 0x13: xor into the old block
            old = memory[base + column]
            block = [a ^ b for a, b in zip(block, old)]
        memory[base + column] = block


def _reference_column(pass_number, slice_number, index, j1, same_lane, lane_length, segment_length):
    """The column of the reference block (RFC 9106 section 3.4.2).

    The reference set W: in the same lane, every block already computed but the previous one; in
    another lane, the blocks of its finished segments (of the last SYNC_POINTS - 1 segments after
    the first pass), less its last block when this is the first block of a segment. J1 is mapped
    non-uniformly onto W: x = J1^2 / 2^32, y = (|W| * x) / 2^32, z = |W| - 1 - y, counted from the
    start of W (the segment after the current one, after the first pass)."""
    if pass_number == 0:
        if slice_number == 0:
            area = index - 1
        elif same_lane:
            area = slice_number * segment_length + index - 1
        else:
            area = slice_number * segment_length - (1 if index == 0 else 0)
        start = 0
    else:
        if same_lane:
            area = lane_length - segment_length + index - 1
        else:
            area = lane_length - segment_length - (1 if index == 0 else 0)
        start = 0 if slice_number == SYNC_POINTS - 1 else (slice_number + 1) * segment_length
    x = (j1 * j1) >> 32
    y = (area * x) >> 32
    z = area - 1 - y
    return (start + z) % lane_length
