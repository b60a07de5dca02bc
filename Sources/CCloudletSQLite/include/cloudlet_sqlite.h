#ifndef CLOUDLET_SQLITE_H
#define CLOUDLET_SQLITE_H

/// Turns off SQLite's memory statistics, before SQLite starts. Returns SQLite's result code.
int cloudlet_sqlite_disable_memory_statistics(void);

#endif
