# quartz-view's open time and scrolling with a large run (viewer_open_bench.cpp).
if(TARGET quartz_viewer_core)
  add_executable(viewer_open_bench viewer_open_bench.cpp)
  set_target_properties(viewer_open_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${BENCH_DIR})
  target_include_directories(viewer_open_bench PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(viewer_open_bench PRIVATE quartz_viewer_core quartz_testing_captures
    quartz_testing_runs)
endif()
