/* iden3's binary container (facts from @iden3/binfileutils), shared checks. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circom/circom_internal.h"
#include "cuzk/util/error.h"
#include "cuzk/ff/fp.h"

int circom_fail(cuzk_circom_error *err, int code, uint64_t offset, const char *fmt, ...)
{
    if (err) {
        err->code = code;
        err->offset = offset;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void circom_limbs(uint64_t *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = circom_u64(p + 8 * i);
}

/* a < m for n-limb little-endian integers */
static bool limbs_lt(const uint64_t *a, const uint64_t *m, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i] != m[i]) return a[i] < m[i];
    return false;
}

bool circom_fr_plain_ok(const uint8_t *p, uint64_t out[4])
{
    circom_limbs(out, p, 4);
    return limbs_lt(out, cuzk_fr_modulus, 4);
}

int circom_container(const uint8_t *buf, size_t len, const char *what, const char magic[4],
                     uint32_t version, circom_section *sec, unsigned max_type,
                     cuzk_circom_error *err)
{
    for (unsigned t = 0; t <= max_type; t++) sec[t] = (circom_section){0};
    if (!buf && len) return circom_fail(err, CUZK_ERR_INVALID_ARG, 0, "%s: no input", what);
    if (len < 12)
        return circom_fail(err, CUZK_ERR_FORMAT, 0, "%s: truncated file header (%zu bytes)", what, len);
    if (memcmp(buf, magic, 4))
        return circom_fail(err, CUZK_ERR_FORMAT, 0, "%s: not a %.4s file (bad magic)", what, magic);
    uint32_t v = circom_u32(buf + 4);
    if (v != version)
        return circom_fail(err, CUZK_ERR_UNSUPPORTED, 4, "%s: version %u not supported (want %u)",
                           what, v, version);
    uint32_t nsec = circom_u32(buf + 8);
    uint64_t pos = 12;
    for (uint32_t i = 0; i < nsec; i++) {
        if (len - pos < 12)
            return circom_fail(err, CUZK_ERR_FORMAT, pos,
                               "%s: truncated: section header %u of %u at offset %llu", what, i, nsec,
                               (unsigned long long)pos);
        uint32_t type = circom_u32(buf + pos);
        uint64_t size = circom_u64(buf + pos + 4);
        uint64_t off = pos + 12;
        if (size > len - off)
            return circom_fail(err, CUZK_ERR_FORMAT, pos,
                               "%s: truncated: section %u (type %u) claims %llu bytes, %llu left", what,
                               i, type, (unsigned long long)size, (unsigned long long)(len - off));
        if (type >= 1 && type <= max_type) {
            if (sec[type].present)
                return circom_fail(err, CUZK_ERR_FORMAT, pos, "%s: section type %u duplicated (offset %llu)",
                                   what, type, (unsigned long long)pos);
            sec[type] = (circom_section){true, off, size};
        }
        pos = off + size;
    }
    return CUZK_OK;
}

int circom_field_header(const uint8_t *buf, uint64_t end, uint64_t *pos, bool want_q, const char *what,
                        cuzk_circom_error *err)
{
    const uint32_t want_n8 = want_q ? 48 : 32;
    const uint64_t *mod = want_q ? cuzk_fp_modulus : cuzk_fr_modulus;
    const char *name = want_q ? "base field" : "scalar field";
    if (end - *pos < 4)
        return circom_fail(err, CUZK_ERR_FORMAT, *pos, "%s: truncated before the %s size", what, name);
    uint32_t n8 = circom_u32(buf + *pos);
    if (n8 != want_n8)
        return circom_fail(err, CUZK_ERR_UNSUPPORTED, *pos,
                           "%s: %s elements of %u bytes, not BLS12-381's %u (wrong curve)", what, name,
                           n8, want_n8);
    *pos += 4;
    if (end - *pos < n8)
        return circom_fail(err, CUZK_ERR_FORMAT, *pos, "%s: truncated inside the %s prime", what, name);
    uint64_t q[6];
    circom_limbs(q, buf + *pos, n8 / 8);
    if (memcmp(q, mod, n8))
        return circom_fail(err, CUZK_ERR_UNSUPPORTED, *pos,
                           "%s: %s prime is not BLS12-381's (wrong curve; compile with circom -p bls12381)",
                           what, name);
    *pos += n8;
    return CUZK_OK;
}

int circom_map_file(circom_map *m, const char *path, const char *what, cuzk_circom_error *err)
{
    static uint8_t empty[1];
    *m = (circom_map){0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return circom_fail(err, CUZK_ERR_IO, 0, "%s: cannot open %s: %s", what, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return circom_fail(err, CUZK_ERR_IO, 0, "%s: %s is not a regular file", what, path);
    }
    if (st.st_size == 0) {
        close(fd);
        m->p = empty;
        return CUZK_OK;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return circom_fail(err, CUZK_ERR_IO, 0, "%s: cannot map %s: %s", what, path, strerror(errno));
    *m = (circom_map){p, (size_t)st.st_size, true};
    return CUZK_OK;
}

void circom_unmap(circom_map *m)
{
    if (m->mapped) munmap(m->p, m->len);
    *m = (circom_map){0};
}
