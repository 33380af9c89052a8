# readme_options.cmake: every option a lab's README handout (or the launcher's README) lists in its
# Options section must exist in its --help,
# so the handout cannot drift from the code.
#   cmake -DLAB=path/to/lab -DREADME=labs/NN_name/README.md -P readme_options.cmake
# Options are whole tokens on both sides: a substring search would find `-n` inside `--no-tuned`
# and `--local` inside `--multi-local`, and pass for an option that does not exist.
file(READ ${README} text)
string(FIND "${text}" "## Options" begin)
if(begin LESS 0)
  message(FATAL_ERROR "${README} has no '## Options' section")
endif()
# The section runs to the next heading (a handout's "## Questions to discuss"), or to the end.
string(SUBSTRING "${text}" ${begin} -1 options)
string(FIND "${options}" "\n## " next)
if(next GREATER 0)
  string(SUBSTRING "${options}" 0 ${next} options)
endif()

# An option starts after one of these characters (or at the start of the text) and runs to the
# first character that cannot be part of its name; the greedy name match is what makes it whole
# (`--multi-local` is one option, never `--multi` or `-local`). A dash after a letter, as in
# "work-group", does not start an option; a dash before a digit is a number.
set(before "[ \t\r\n`([{|,/\"']")
set(name "--?[a-zA-Z][-a-zA-Z0-9_]*")
set(after "[^-a-zA-Z0-9_]")

string(REGEX MATCHALL "(^|${before})${name}" flags "${options}")
list(TRANSFORM flags REPLACE "^[^-]+" "")
list(REMOVE_DUPLICATES flags)
list(LENGTH flags count)
if(count EQUAL 0)
  message(FATAL_ERROR "${README}: no options found in its '## Options' section")
endif()

execute_process(COMMAND ${LAB} --help OUTPUT_VARIABLE help RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${LAB} --help exited with ${code}")
endif()
set(missing "")
foreach(flag IN LISTS flags)
  # A name holds only letters, digits, '-' and '_', none of them special in a regex.
  if(NOT help MATCHES "(^|${before})${flag}(${after}|$)")
    list(APPEND missing ${flag})
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "${README} lists options that ${LAB} --help does not know: ${missing}")
endif()
message(STATUS "${count} options of ${README} found in --help: ${flags}")
