#ifndef SPLAY_CMPG123QUIET_H
#define SPLAY_CMPG123QUIET_H

// Nothing to call: linking this target into the splay executable is what quiets libmpg123 (quiet_mpg123.c).

#endif
