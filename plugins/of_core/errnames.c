/* plugins/of_core/errnames.c - OFPT_ERROR type and code names as pyof
 * (python3-openflow, pyof/v0x04/asynchronous/error_msg.py) spells them,
 * misspellings included ("FPGMFC_GROUP_EXISTS"): Kytos publishes these.
 * Generated once from pyof; numbers are the table indexes. */
#include "of_core.h"

static const char *const hellofailedcode[] = {"OFPHFC_INCOMPATIBLE", "OFPHFC_EPERM"};
static const char *const badrequestcode[] = {"OFPBRC_BAD_VERSION", "OFPBRC_BAD_TYPE", "OFPBRC_BAD_MULTIPART", "OFPBRC_BAD_EXPERIMENTER", "OFPBRC_BAD_EXP_TYPE", "OFPBRC_EPERM", "OFPBRC_BAD_LEN", "OFPBRC_BUFFER_EMPTY", "OFPBRC_BUFFER_UNKNOWN", "OFPBRC_BAD_TABLE_ID", "OFPBRC_IS_SLAVE", "OFPBRC_BAD_PORT", "OFPBRC_BAD_PACKET", "OFPBRC_MULTIPART_BUFFER_OVERFLOW"};
static const char *const badactioncode[] = {"OFPBAC_BAD_TYPE", "OFPBAC_BAD_LEN", "OFPBAC_BAD_EXPERIMENTER", "OFPBAC_BAD_EXP_TYPE", "OFPBAC_BAD_OUT_PORT", "OFPBAC_BAD_ARGUMENT", "OFPBAC_EPERM", "OFPBAC_TOO_MANY", "OFPBAC_BAD_QUEUE", "OFPBAC_BAD_OUT_GROUP", "OFPBAC_MATCH_INCONSISTENT", "OFPBAC_UNSUPPORTED_ORDER", "OFPBAC_BAD_TAG", "OFPBAC_BAD_SET_TYPE", "OFPBAC_BAD_SET_LEN", "OFPBAC_BAD_SET_ARGUMENT"};
static const char *const badinstructioncode[] = {"OFPBIC_UNKNOWN_INST", "OFPBIC_UNSUP_INST", "OFPBIC_BAD_TABLE_ID", "OFPBIC_UNSUP_METADATA", "OFPBIC_UNSUP_METADATA_MASK", "OFPBIC_BAD_EXPERIMENTER", "OFPBIC_BAD_EXP_TYPE", "OFPBIC_BAD_LEN", "OFPBIC_EPERM"};
static const char *const badmatchcode[] = {"OFPBMC_BAD_TYPE", "OFPBMC_BAD_LEN", "OFPBMC_BAD_TAG", "OFPBMC_BAD_DL_ADDR_MASK", "OFPBMC_BAD_NW_ADDR_MASK", "OFPBMC_BAD_WILDCARDS", "OFPBMC_BAD_FIELD", "OFPBMC_BAD_VALUE", "OFPBMC_BAD_MASK", "OFPBMC_BAD_PREREQ", "OFPBMC_DUP_FIELD", "OFPBMC_EPERM"};
static const char *const flowmodfailedcode[] = {"OFPFMFC_UNKNOWN", "OFPFMFC_TABLE_FULL", "OFPFMFC_BAD_TABLE_ID", "OFPFMFC_OVERLAP", "OFPFMFC_EPERM", "OFPFMFC_BAD_TIMEOUT", "OFPFMFC_BAD_COMMAND", "OFPFMFC_BAD_FLAGS"};
static const char *const groupmodfailedcode[] = {"FPGMFC_GROUP_EXISTS", "OFPGMFC_INVALID_GROUP", "OFPGMFC_WEIGHT_UNSUPPORTED", "OFPGMFC_OUT_OF_GROUPS", "OFPGMFC_OUT_OF_BUCKETS", "OFPGMFC_CHAINING_UNSUPPORTED", "OFPGMFC_WATCH_UNSUPPORTED", "OFPGMFC_LOOP", "OFPGMFC_UNKNOWN_GROUP", "OFPGMFC_CHAINED_GROUP", "OFPGMFC_BAD_TYPE", "OFPGMFC_BAD_COMMAND", "OFPGMFC_BAD_BUCKET", "OFPGMFC_BAD_WATCH", "OFPGMFC_EPERM"};
static const char *const portmodfailedcode[] = {"OFPPMFC_BAD_PORT", "OFPPMFC_BAD_HW_ADDR", "OFPPMFC_BAD_CONFIG", "OFPPMFC_BAD_ADVERTISE", "OFPPMFC_EPERM"};
static const char *const tablemodfailedcode[] = {"OFPTMFC_BAD_TABLE", "OFPTMFC_BAD_CONFIG", "OFPTMFC_EPERM"};
static const char *const queueopfailedcode[] = {"OFPQOFC_BAD_PORT", "OFPQOFC_BAD_QUEUE", "OFPQOFC_EPERM"};
static const char *const switchconfigfailedcode[] = {"OFPSCFC_BAD_FLAGS", "OFPSCFC_BAD_LEN", "OFPQCFC_EPERM"};
static const char *const rolerequestfailedcode[] = {"OFPRRFC_STALE", "OFPRRFC_UNSUP", "OFPRRFC_BAD_ROLE"};
static const char *const metermodfailedcode[] = {"OFPMMFC_UNKNOWN", "OFPMMFC_METER_EXISTS", "OFPMMFC_INVALID_METER", "OFPMMFC_UNKNOWN_METER", "OFPMMFC_BAD_COMMAND", "OFPMMFC_BAD_FLAGS", "OFPMMFC_BAD_RATE", "OFPMMFC_BAD_BURST", "OFPMMFC_BAD_BAND", "OFPMMFC_BAD_BAND_VALUE", "OFPMMFC_OUT_OF_METERS", "OFPMMFC_OUT_OF_BANDS"};
static const char *const tablefeaturesfailedcode[] = {"OFPTFFC_BAD_TABLE", "OFPTFFC_BAD_METADATA", "OFPTFFC_BAD_TYPE", "OFPTFFC_BAD_LEN", "OFPTFFC_BAD_ARGUMENT", "OFPTFFC_EPERM"};

static const struct { const char *type; const char *const *codes; size_t n; } errs[] = {
    {"OFPET_HELLO_FAILED", hellofailedcode, sizeof hellofailedcode / sizeof hellofailedcode[0]},
    {"OFPET_BAD_REQUEST", badrequestcode, sizeof badrequestcode / sizeof badrequestcode[0]},
    {"OFPET_BAD_ACTION", badactioncode, sizeof badactioncode / sizeof badactioncode[0]},
    {"OFPET_BAD_INSTRUCTION", badinstructioncode, sizeof badinstructioncode / sizeof badinstructioncode[0]},
    {"OFPET_BAD_MATCH", badmatchcode, sizeof badmatchcode / sizeof badmatchcode[0]},
    {"OFPET_FLOW_MOD_FAILED", flowmodfailedcode, sizeof flowmodfailedcode / sizeof flowmodfailedcode[0]},
    {"OFPET_GROUP_MOD_FAILED", groupmodfailedcode, sizeof groupmodfailedcode / sizeof groupmodfailedcode[0]},
    {"OFPET_PORT_MOD_FAILED", portmodfailedcode, sizeof portmodfailedcode / sizeof portmodfailedcode[0]},
    {"OFPET_TABLE_MOD_FAILED", tablemodfailedcode, sizeof tablemodfailedcode / sizeof tablemodfailedcode[0]},
    {"OFPET_QUEUE_OP_FAILED", queueopfailedcode, sizeof queueopfailedcode / sizeof queueopfailedcode[0]},
    {"OFPET_SWITCH_CONFIG_FAILED", switchconfigfailedcode, sizeof switchconfigfailedcode / sizeof switchconfigfailedcode[0]},
    {"OFPET_ROLE_REQUEST_FAILED", rolerequestfailedcode, sizeof rolerequestfailedcode / sizeof rolerequestfailedcode[0]},
    {"OFPET_METER_MOD_FAILED", metermodfailedcode, sizeof metermodfailedcode / sizeof metermodfailedcode[0]},
    {"OFPET_TABLE_FEATURES_FAILED", tablefeaturesfailedcode, sizeof tablefeaturesfailedcode / sizeof tablefeaturesfailedcode[0]},
};

const char *ofc_error_type_name(uint16_t type)
{
    if (type == 0xffff)
        return "OFPET_EXPERIMENTER";
    return type < sizeof errs / sizeof errs[0] ? errs[type].type : NULL;
}

const char *ofc_error_code_name(uint16_t type, uint16_t code)
{
    if (type >= sizeof errs / sizeof errs[0] || code >= errs[type].n)
        return NULL;
    return errs[type].codes[code];
}
