# cmake -DGO_MD2MAN=... -DGUIDE=guide.md -DPAGE=name.1 -DNAME=name -DSUMMARY=... -DVERSION=...
#   -P md2man.cmake
# A man page from a guide: a title and a NAME section (what man -k and whatis read) put before
# the guide, whose own title becomes DESCRIPTION, then go-md2man.
file(READ ${GUIDE} guide)
# The guide's title is the page's description.
string(REGEX REPLACE "^# [^\n]*" "# DESCRIPTION" guide "${guide}")
string(TOUPPER ${NAME} title)
get_filename_component(page_dir ${PAGE} DIRECTORY)
set(source ${page_dir}/${NAME}.1.md)
file(WRITE ${source} "% ${title} 1 \"\" \"Quartz ${VERSION}\" \"User Commands\"\n\n"
                     "# NAME\n\n${NAME} - ${SUMMARY}\n\n${guide}")
execute_process(COMMAND ${GO_MD2MAN} -in ${source} -out ${PAGE} COMMAND_ERROR_IS_FATAL ANY)
# go-md2man 2.0.2 ends a long cell (a tbl text block, T{ ... T}) with a line break even before
# the next cell's tab, which splits the row in two; the tab belongs on the same line. (Our
# tables have no empty first cell, the one other place where a line starts with a tab.)
file(READ ${PAGE} page)
string(REPLACE "T}\n\t" "T}\t" page "${page}")
file(WRITE ${PAGE} "${page}")
