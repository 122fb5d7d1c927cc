# The pip wheel: `bash .ci/wheel BUILD` builds it (scikit-build-core, auditwheel)
# and installs it with JupyterLab into BUILD/wheel-env, outside any timed test;
# install.wheel checks that environment as a user would use it. Skipped (77, with
# the reason) when the environment was not made; .ci/run sets VS_REQUIRE_WHEEL=1,
# so there it fails instead.
add_test(NAME install.wheel
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/install/test_wheel.py)
set_tests_properties(install.wheel PROPERTIES LABELS install TIMEOUT 300 SKIP_RETURN_CODE 77
                     ENVIRONMENT "VS_BUILD_DIR=${PROJECT_BINARY_DIR};VS_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
