/* sheet_access.h — typed access to the sheet's document: the keys of its top
 * level, its card, the card's engine, its placement and a component, named
 * once (sheet/sheet_keys.def, checked against records/sheet.schema.json), and
 * the functions that read and write them. A module that reads the card asks
 * for VS_CK_TASK, never for "task": a key renamed or added is one row of the
 * table and one property of the schema. The layout itself, with what each key
 * holds, is sheet/sheet.h's; this module is pure (no I/O, no globals but the
 * name tables).
 */
#ifndef VS_SHEET_SHEET_ACCESS_H
#define VS_SHEET_SHEET_ACCESS_H

#include <jansson.h>
#include <stdint.h>

#include "sheet/sheet_keys.def"

#define VS_SHEET_KEY_ENUM_(e, s) VS_SK_##e,
#define VS_CARD_KEY_ENUM_(e, s) VS_CK_##e,
#define VS_ENGINE_KEY_ENUM_(e, s) VS_EK_##e,
#define VS_PLACEMENT_KEY_ENUM_(e, s) VS_PK_##e,
#define VS_COMPONENT_KEY_ENUM_(e, s) VS_COMPK_##e,
typedef enum vs_sheet_key { VS_SHEET_KEYS(VS_SHEET_KEY_ENUM_) VS_SK_COUNT } vs_sheet_key;
typedef enum vs_card_key { VS_SHEET_CARD_KEYS(VS_CARD_KEY_ENUM_) VS_CK_COUNT } vs_card_key;
typedef enum vs_sheet_engine_key {
    VS_SHEET_ENGINE_KEYS(VS_ENGINE_KEY_ENUM_) VS_EK_COUNT
} vs_sheet_engine_key;
typedef enum vs_placement_key {
    VS_SHEET_PLACEMENT_KEYS(VS_PLACEMENT_KEY_ENUM_) VS_PK_COUNT
} vs_placement_key;
typedef enum vs_component_key {
    VS_SHEET_COMPONENT_KEYS(VS_COMPONENT_KEY_ENUM_) VS_COMPK_COUNT
} vs_component_key;

/* The names, indexed by the enums above (static strings, the record's words). */
extern const char *const vs_sheet_key_names[VS_SK_COUNT];
extern const char *const vs_sheet_card_key_names[VS_CK_COUNT];
extern const char *const vs_sheet_engine_key_names[VS_EK_COUNT];
extern const char *const vs_sheet_placement_key_names[VS_PK_COUNT];
extern const char *const vs_sheet_component_key_names[VS_COMPK_COUNT];

/* The card's dimensions of a run, language models' then image and video
 * generation's (length, concurrency, microbatch, width, height, frames,
 * batch): what a stage states, a measurement's dims report and the limit
 * stage and validation compare against the card. */
#define VS_SHEET_NDIMS 7
extern const vs_card_key vs_sheet_card_dims[VS_SHEET_NDIMS];

/* The member k of the sheet's top level (borrowed), or NULL when absent or
 * sheet is not an object. */
json_t *vs_sheet_get(const json_t *sheet, vs_sheet_key k);
/* Its string, or NULL when absent or not a string ("id", "title", "decision"). */
const char *vs_sheet_get_str(const json_t *sheet, vs_sheet_key k);
/* Sets the member k to value (taken, also on failure). 0, or VS_ENOMEM. */
int vs_sheet_set(json_t *sheet, vs_sheet_key k, json_t *value_take);

/* The card's field k (borrowed), or NULL when absent, or when the sheet has no
 * card. */
json_t *vs_sheet_card_get(const json_t *sheet, vs_card_key k);
/* Its string, or NULL when absent, null or not a string ("model", "task"). */
const char *vs_sheet_card_str(const json_t *sheet, vs_card_key k);
/* The field k of a card object (a sheet's card, an evidence entry's card as it
 * was; borrowed), or NULL when absent. */
json_t *vs_sheet_card_field(const json_t *card, vs_card_key k);
/* Sets the card's field k to value (taken, also on failure). 0, VS_ENOMEM, or
 * VS_EVALUE when the sheet has no card. The writer moves the card's
 * generation itself (vs_sheet_card_touch), once for all the fields a line
 * changes. */
int vs_sheet_card_set(json_t *sheet, vs_card_key k, json_t *value_take);

/* The card's engine: its field k ("name", "keys"; borrowed), or NULL when the
 * card declares none. */
json_t *vs_sheet_engine_get(const json_t *sheet, vs_sheet_engine_key k);
/* The field k of a card's engine object (borrowed), or NULL when absent. */
json_t *vs_sheet_engine_field(const json_t *engine, vs_sheet_engine_key k);
/* The declared engine's name, or NULL when none is declared. */
const char *vs_sheet_engine_name(const json_t *sheet);

/* The placement's field k (borrowed), or NULL when absent. */
json_t *vs_sheet_placement_get(const json_t *sheet, vs_placement_key k);
/* The field k of a placement object (borrowed), or NULL when absent. */
json_t *vs_sheet_placement_field(const json_t *placement, vs_placement_key k);
/* Its string ("kind", "offload"), or NULL when absent, null or not a string. */
const char *vs_sheet_placement_str(const json_t *sheet, vs_placement_key k);

/* A component's field k (borrowed), or NULL when absent. A walk over many
 * components reads them through sheet/sheet.h's vs_component_view instead. */
json_t *vs_sheet_component_get(const json_t *component, vs_component_key k);
/* Its string ("name", "status", "source", ...), or NULL when absent, null or
 * not a string. */
const char *vs_sheet_component_str(const json_t *component, vs_component_key k);

#endif
