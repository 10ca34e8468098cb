/* tests/napps/badui.c - a NApp whose embedded ui table (kytos_napp_ui)
 * names a file outside its ui/ ("../../secret.txt"): the host must refuse
 * the NApp before its init runs, naming the bad entry.  init would say so
 * in the log if it ran. */
#include <kytos/kytos.h>

static int badui_init(kytos_napp *n, char **errmsg)
{
    (void)errmsg;
    kytos_log(n, KYTOS_LOG_ERROR, "badui: init ran despite a malformed ui table");
    return KYTOS_OK;
}

KYTOS_NAPP_DEFINE("kytos", "badui", "0.0.1", KYTOS_NO_DEPS, NULL, 0, 0, badui_init, NULL, NULL);

static const char good[] = "<template>fine</template>";
static const struct kytos_napp_ui_file files[] = {
    {"k-toolbar/main.kytos", good, sizeof good - 1},
    {"k-toolbar/../../secret.txt", good, sizeof good - 1},
};
KYTOS__EXPORT const struct kytos_napp_ui kytos_napp_ui = {
    KYTOS_NAPP_UI_MAGIC, sizeof(struct kytos_napp_ui), 2, files};
