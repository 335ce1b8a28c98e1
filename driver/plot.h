/*
 * plot.h — line plots for `tilec bench --plot`, drawn by PLplot.
 *
 * PLplot (libplplot.so.17 and its cairo driver, Debian's libplplot17 and
 * plplot-driver-cairo) is opened at run time, as the CUDA driver is: tilec
 * builds and runs without it, and only --plot asks for it. Its development
 * package is not needed, because this file declares the few functions of
 * PLplot's C API it calls.
 */
#ifndef TILEC_DRIVER_PLOT_H
#define TILEC_DRIVER_PLOT_H

#include <stdbool.h>
#include <stddef.h>

/* One line of the plot: n points, with its legend entry, and the band
 * between lo and hi drawn under it (the 20th and 80th percentiles), unless
 * they are NULL. */
typedef struct PlotSeries {
  const char *label;
  const double *x, *y, *lo, *hi;
  int n;
} PlotSeries;

typedef struct Plot {
  const char *path; /* .png, .svg or .pdf: the format */
  const char *title, *xlabel, *ylabel;
  bool xlog; /* a logarithmic x axis (x > 0) */
  const PlotSeries *series;
  int nseries;
} Plot;

/* The output format of a path by its extension ("pngcairo", "svgcairo",
 * "pdfcairo": PLplot's device), or NULL when it is none of them. */
const char *plot_device(const char *path);

/* Whether PLplot and the device for path can draw: false with the reason in
 * err (checked before a benchmark runs, so that it does not run for nothing). */
bool plot_available(const char *path, char *err, size_t errlen);

/* Draws the plot into p->path. False with the reason in err: PLplot is not
 * installed, the device is missing, the file cannot be written. */
bool plot_write(const Plot *p, char *err, size_t errlen);

#endif
