# Man pages, generated from the guides at build time by go-md2man (Debian's go-md2man, 1.8 MB;
# pandoc would do the same for 168 MB, and a generator of our own would be one more Markdown
# parser to keep right): quartz(1) is docs/user-guide.md, quartz-view(1) docs/viewer.md, and
# quartz-cc(1) and quartz-c++(1) point to quartz(1). Without go-md2man, no man pages.
find_program(QUARTZ_GO_MD2MAN go-md2man)
if(NOT QUARTZ_GO_MD2MAN)
  message(STATUS "go-md2man not found: no man pages (scripts/install-deps.sh installs it)")
  return()
endif()

set(QUARTZ_MAN_DIR ${CMAKE_BINARY_DIR}/man)
# quartz_man_page(NAME GUIDE SUMMARY): NAME.1 from GUIDE, whose NAME line is SUMMARY.
function(quartz_man_page name guide summary)
  set(page ${QUARTZ_MAN_DIR}/${name}.1)
  add_custom_command(
    OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -DGO_MD2MAN=${QUARTZ_GO_MD2MAN} -DGUIDE=${guide} -DPAGE=${page}
            -DNAME=${name} -DSUMMARY=${summary} -DVERSION=${PROJECT_VERSION}
            -P ${PROJECT_SOURCE_DIR}/cmake/md2man.cmake
    DEPENDS ${guide} ${PROJECT_SOURCE_DIR}/cmake/md2man.cmake
    COMMENT "Man page ${name}(1) from ${guide}"
    VERBATIM)
  set(QUARTZ_MAN_PAGES ${QUARTZ_MAN_PAGES} ${page} PARENT_SCOPE)
endfunction()

quartz_man_page(quartz ${PROJECT_SOURCE_DIR}/docs/user-guide.md
                "profile parallel programs by normalized processor time")
set(QUARTZ_MAN_LINKS quartz-cc quartz-c++)
if(TARGET quartz-view)
  quartz_man_page(quartz-view ${PROJECT_SOURCE_DIR}/docs/viewer.md "browse Quartz profiles")
endif()
foreach(link ${QUARTZ_MAN_LINKS})
  file(WRITE ${QUARTZ_MAN_DIR}/${link}.1 ".so man1/quartz.1\n")
  list(APPEND QUARTZ_MAN_PAGES ${QUARTZ_MAN_DIR}/${link}.1)
endforeach()
add_custom_target(quartz_man_pages ALL DEPENDS ${QUARTZ_MAN_PAGES})
install(FILES ${QUARTZ_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
