# End-to-end tests with a person's own tools: notebooks 01, 02 and 04 (this one
# against the fake NVML) in Debian's classic Jupyter Notebook through Debian's Chromium (playwright-core from npm,
# installed into ${PROJECT_BINARY_DIR}/browser by browser.setup), and a
# jupyter-console session in a pseudo-terminal. Both use the build tree's
# kernelspec (VS_TEST_JUPYTER_PATH, kernel/build.cmake).
#
#   ctest -L browser -V   # screenshots: ${PROJECT_BINARY_DIR}/browser/seed-notebook.png,
#                         # notebook-02.png, notebook-04.png
#   ctest -L console -V
#
# browser.notebook exits 77 (skipped) only where Chromium cannot start or npm
# cannot install playwright-core (no network); any other problem fails it.

set(_vs_e2e_env
    "JUPYTER_PATH=${VS_TEST_JUPYTER_PATH}"
    "JUPYTER_PLATFORM_DIRS=1"
    "PYTHONDONTWRITEBYTECODE=1"
    "VS_BUILD_DIR=${PROJECT_BINARY_DIR}"
    "VS_SOURCE_DIR=${PROJECT_SOURCE_DIR}")

# The installs (npm ci of playwright-core, the lab-venv's pip install) in their
# own step with their own timeout, before the browser tests (a ctest fixture:
# `ctest -R browser.lab` runs it first too); the tests' budgets are then the
# browsers' alone. 77 (skipped) without a network: the tests then skip too.
add_test(NAME browser.setup
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/browser/run_browser.py --setup
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
set_tests_properties(browser.setup PROPERTIES LABELS browser TIMEOUT 480
                     SKIP_RETURN_CODE 77 RESOURCE_LOCK vs_lab_venv FIXTURES_SETUP vs_browser_tools
                     ENVIRONMENT "${_vs_e2e_env}")

add_test(NAME browser.notebook
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/browser/run_browser.py
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
# 200 s of test (browser.setup has installed playwright-core).
set_tests_properties(browser.notebook PROPERTIES LABELS browser TIMEOUT 260
                     SKIP_RETURN_CODE 77 FIXTURES_REQUIRED vs_browser_tools
                     ENVIRONMENT "${_vs_e2e_env};VS_FAKE_NVML=$<TARGET_FILE:fake_nvml>")

# The same notebooks in JupyterLab 4 and Notebook 7 from PyPI (a virtual
# environment made once in ${PROJECT_BINARY_DIR}/lab-venv; skipped without a
# network), with Tab, Shift-Tab and an interrupt. Screenshots: browser/lab-NN.png,
# browser/nb7-NN.png.
foreach(_vs_front lab nb7)
    add_test(NAME browser.${_vs_front}
             COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/browser/run_browser.py
                     --frontend ${_vs_front}
             WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
    set_tests_properties(browser.${_vs_front} PROPERTIES LABELS browser TIMEOUT 260
                         SKIP_RETURN_CODE 77 RESOURCE_LOCK vs_lab_venv
                         FIXTURES_REQUIRED vs_browser_tools
                         ENVIRONMENT "${_vs_e2e_env};VS_FAKE_NVML=$<TARGET_FILE:fake_nvml>")
endforeach()

add_test(NAME console.session
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/console/run_console.py
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
set_tests_properties(console.session PROPERTIES LABELS console TIMEOUT 90
                     ENVIRONMENT "${_vs_e2e_env}")
