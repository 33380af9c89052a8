# tune.cmake: --tune writes the tuning cache and the next run uses it. Runs LAB with ARGS plus
# --tune --tune-budget 5 with LAB_TUNING_CACHE in a fresh folder, checks the cache file names the
# variant, then runs LAB with ARGS again and expects its table to say "(tuned)", and with
# --no-tuned "(default)".
#   cmake -DLAB=path -DARGS="a|b" -DVARIANT=name -DFOLDER=dir -P tune.cmake
string(REPLACE "|" ";" ARGS "${ARGS}")
file(REMOVE_RECURSE ${FOLDER})
set(ENV{LAB_TUNING_CACHE} ${FOLDER}/tuning.json)
execute_process(COMMAND ${LAB} ${ARGS} --tune --tune-budget 5
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "--tune exited with ${code}:\n${out}\n${err}")
endif()
if(NOT err MATCHES "tune: stored in ")
  message(FATAL_ERROR "--tune did not say where it stored the best:\n${err}")
endif()
file(READ ${FOLDER}/tuning.json cache)
string(JSON entries LENGTH "${cache}" entries)
string(JSON variant GET "${cache}" entries 0 variant)
if(NOT entries EQUAL 1 OR NOT variant STREQUAL VARIANT)
  message(FATAL_ERROR "the cache does not hold one entry for ${VARIANT}:\n${cache}")
endif()
execute_process(COMMAND ${LAB} ${ARGS} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT code EQUAL 0 OR NOT out MATCHES "\\(tuned\\)")
  message(FATAL_ERROR "the run after --tune (exit ${code}) does not report (tuned):\n${out}\n${err}")
endif()
execute_process(COMMAND ${LAB} ${ARGS} --no-tuned OUTPUT_VARIABLE out RESULT_VARIABLE code)
if(NOT code EQUAL 0 OR NOT out MATCHES "\\(default\\)")
  message(FATAL_ERROR "--no-tuned (exit ${code}) does not report (default):\n${out}")
endif()
# A corrupt cache is a warning and the defaults, never a failure.
file(WRITE ${FOLDER}/tuning.json "{not json")
execute_process(COMMAND ${LAB} ${ARGS} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT code EQUAL 0 OR NOT out MATCHES "\\(default\\)" OR NOT err MATCHES "warning: the tuning cache")
  message(FATAL_ERROR "a corrupt cache (exit ${code}) should warn and use the defaults:\n${out}\n${err}")
endif()
