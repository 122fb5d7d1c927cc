# The Hugging Face Hub client (model/hfhub, net/http): `model` and `weights`
# against a local stand-in for the Hub (tests/hub/fake_hub.py: API, resolve, a
# CDN on another port with Range, a gated repository, misbehaving servers),
# counting the bytes it serves. Needs libcurl at test time (Debian's libcurl4,
# in .ci/deps); the product itself runs without it.
add_test(NAME hub.range_headers
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/hub/test_hub.py
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
# RUN_SERIAL: it times a 163-shard fetch (under 2 s), which a busy machine can blur
set_tests_properties(hub.range_headers PROPERTIES LABELS "model" TIMEOUT 300 RUN_SERIAL TRUE
                     ENVIRONMENT "VS_BUILD_DIR=${PROJECT_BINARY_DIR};VS_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
