/* tests/napps/notanapp.c - a shared object without a NApp descriptor. */
int not_a_napp(void);
int not_a_napp(void) { return 42; }
