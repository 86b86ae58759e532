# cmake -DIN=file -DOUT=file.c -DSYM=name -P embed.cmake: a C array of IN's bytes (NUL-terminated)
# and its length, so a data file is part of a library (filecoin-proofs' parameters.json, the daemon's
# .proto descriptors).
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "/* generated from ${IN} by scripts/embed.cmake */\n#include <stddef.h>\n"
     "const unsigned char ${SYM}[] = {${bytes}0};\nconst size_t ${SYM}_len = ${len};\n")
