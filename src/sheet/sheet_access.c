/* sheet_access.c — the sheet's keys as tables, and the accessors over them. */
#include "sheet/sheet_access.h"

#include "util/error.h"

#define VS_KEY_NAME_(e, s) s,
const char *const vs_sheet_key_names[VS_SK_COUNT] = {VS_SHEET_KEYS(VS_KEY_NAME_)};
const char *const vs_sheet_card_key_names[VS_CK_COUNT] = {VS_SHEET_CARD_KEYS(VS_KEY_NAME_)};
const char *const vs_sheet_engine_key_names[VS_EK_COUNT] = {VS_SHEET_ENGINE_KEYS(VS_KEY_NAME_)};
const char *const vs_sheet_placement_key_names[VS_PK_COUNT] = {
    VS_SHEET_PLACEMENT_KEYS(VS_KEY_NAME_)};
const char *const vs_sheet_component_key_names[VS_COMPK_COUNT] = {
    VS_SHEET_COMPONENT_KEYS(VS_KEY_NAME_)};

const vs_card_key vs_sheet_card_dims[VS_SHEET_NDIMS] = {
    VS_CK_LENGTH, VS_CK_CONCURRENCY, VS_CK_MICROBATCH, VS_CK_WIDTH,
    VS_CK_HEIGHT, VS_CK_FRAMES,      VS_CK_BATCH};

json_t *vs_sheet_get(const json_t *sheet, vs_sheet_key k)
{
    return json_object_get(sheet, vs_sheet_key_names[k]);
}

const char *vs_sheet_get_str(const json_t *sheet, vs_sheet_key k)
{
    return json_string_value(vs_sheet_get(sheet, k));
}

int vs_sheet_set(json_t *sheet, vs_sheet_key k, json_t *value_take)
{
    return json_object_set_new(sheet, vs_sheet_key_names[k], value_take) < 0 ? VS_ENOMEM : 0;
}

json_t *vs_sheet_card_get(const json_t *sheet, vs_card_key k)
{
    return json_object_get(vs_sheet_get(sheet, VS_SK_CARD), vs_sheet_card_key_names[k]);
}

json_t *vs_sheet_card_field(const json_t *card, vs_card_key k)
{
    return json_object_get(card, vs_sheet_card_key_names[k]);
}

const char *vs_sheet_card_str(const json_t *sheet, vs_card_key k)
{
    return json_string_value(vs_sheet_card_get(sheet, k));
}

int vs_sheet_card_set(json_t *sheet, vs_card_key k, json_t *value_take)
{
    json_t *card = vs_sheet_get(sheet, VS_SK_CARD);
    if (!json_is_object(card)) {
        json_decref(value_take);
        return VS_EVALUE;
    }
    return json_object_set_new(card, vs_sheet_card_key_names[k], value_take) < 0 ? VS_ENOMEM : 0;
}

json_t *vs_sheet_engine_get(const json_t *sheet, vs_sheet_engine_key k)
{
    return json_object_get(vs_sheet_card_get(sheet, VS_CK_ENGINE), vs_sheet_engine_key_names[k]);
}

json_t *vs_sheet_engine_field(const json_t *engine, vs_sheet_engine_key k)
{
    return json_object_get(engine, vs_sheet_engine_key_names[k]);
}

const char *vs_sheet_engine_name(const json_t *sheet)
{
    return json_string_value(vs_sheet_engine_get(sheet, VS_EK_NAME));
}

json_t *vs_sheet_placement_get(const json_t *sheet, vs_placement_key k)
{
    return json_object_get(vs_sheet_get(sheet, VS_SK_PLACEMENT), vs_sheet_placement_key_names[k]);
}

json_t *vs_sheet_placement_field(const json_t *placement, vs_placement_key k)
{
    return json_object_get(placement, vs_sheet_placement_key_names[k]);
}

const char *vs_sheet_placement_str(const json_t *sheet, vs_placement_key k)
{
    return json_string_value(vs_sheet_placement_get(sheet, k));
}

json_t *vs_sheet_component_get(const json_t *component, vs_component_key k)
{
    return json_object_get(component, vs_sheet_component_key_names[k]);
}

const char *vs_sheet_component_str(const json_t *component, vs_component_key k)
{
    return json_string_value(vs_sheet_component_get(component, k));
}
