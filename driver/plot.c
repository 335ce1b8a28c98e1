/*
 * plot.c — line plots through PLplot's C API, opened with dlopen.
 *
 * The functions below are PLplot 5.15's (libplplot.so.17), with PLFLT a
 * double and PLINT a 32-bit int as Debian builds it. PLplot ends the process
 * when it meets an error it cannot go on from, unless the exit handler
 * (plsexit) does not return: ours jumps back here, so that --plot fails
 * with a message and the benchmark's other output stands. It also asks on
 * standard input for a device it does not know, so the device is checked
 * against its list (plgDevs) first.
 */
#include "plot.h"

#include "cli.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef double PLFLT;
typedef int32_t PLINT;

#define PL_POSITION_RIGHT 0x2
#define PL_POSITION_OUTSIDE 0x20
#define PL_LEGEND_LINE 0x4
#define PL_LEGEND_BACKGROUND 0x20
#define PL_LEGEND_BOUNDING_BOX 0x40

typedef struct PLplot {
  void (*sdev)(const char *);
  void (*sfnam)(const char *);
  void (*spage)(PLFLT, PLFLT, PLINT, PLINT, PLINT, PLINT);
  void (*scolbg)(PLINT, PLINT, PLINT);
  void (*scol0)(PLINT, PLINT, PLINT, PLINT);
  void (*col0)(PLINT);
  void (*init)(void);
  void (*env)(PLFLT, PLFLT, PLFLT, PLFLT, PLINT, PLINT);
  void (*lab)(const char *, const char *, const char *);
  void (*width)(PLFLT);
  void (*line)(PLINT, const PLFLT *, const PLFLT *);
  void (*poin)(PLINT, const PLFLT *, const PLFLT *, PLINT);
  void (*legend)(PLFLT *, PLFLT *, PLINT, PLINT, PLFLT, PLFLT, PLFLT, PLINT, PLINT, PLINT, PLINT, PLINT, PLINT,
                 const PLINT *, PLFLT, PLFLT, PLFLT, PLFLT, const PLINT *, const char *const *, const PLINT *,
                 const PLINT *, const PLFLT *, const PLFLT *, const PLINT *, const PLINT *, const PLFLT *,
                 const PLINT *, const PLFLT *, const PLINT *, const char *const *);
  void (*end)(void);
  void (*sexit)(int (*)(const char *));
  void (*gdevs)(const char ***, const char ***, int *);
  void (*adv)(PLINT);
  void (*vpor)(PLFLT, PLFLT, PLFLT, PLFLT);
  void (*wind)(PLFLT, PLFLT, PLFLT, PLFLT);
  void (*box)(const char *, PLFLT, PLINT, const char *, PLFLT, PLINT);
  void (*join)(PLFLT, PLFLT, PLFLT, PLFLT);
  void (*mtex)(const char *, PLFLT, PLFLT, PLFLT, const char *);
  void (*fill)(PLINT, const PLFLT *, const PLFLT *);
  void (*scol0a)(PLINT, PLINT, PLINT, PLINT, PLFLT);
  void (*lsty)(PLINT);
} PLplot;

/* Opens PLplot once; NULL when it is not installed. */
static const PLplot *plplot(void) {
  static PLplot pl;
  static int state; /* 0 not tried, 1 loaded, -1 missing */
  if (state) return state > 0 ? &pl : NULL;
  state = -1;
  void *lib = dlopen("libplplot.so.17", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return NULL;
  struct {
    void *slot;
    const char *name;
  } syms[] = {
      {&pl.sdev, "c_plsdev"},     {&pl.sfnam, "c_plsfnam"},   {&pl.spage, "c_plspage"},
      {&pl.scolbg, "c_plscolbg"}, {&pl.scol0, "c_plscol0"},   {&pl.col0, "c_plcol0"},
      {&pl.init, "c_plinit"},     {&pl.env, "c_plenv"},       {&pl.lab, "c_pllab"},
      {&pl.width, "c_plwidth"},   {&pl.line, "c_plline"},     {&pl.poin, "c_plpoin"},
      {&pl.legend, "c_pllegend"}, {&pl.end, "c_plend"},       {&pl.sexit, "plsexit"},
      {&pl.gdevs, "plgDevs"},     {&pl.adv, "c_pladv"},       {&pl.vpor, "c_plvpor"},
      {&pl.wind, "c_plwind"},     {&pl.box, "c_plbox"},       {&pl.join, "c_pljoin"},
      {&pl.mtex, "c_plmtex"},     {&pl.fill, "c_plfill"},     {&pl.scol0a, "c_plscol0a"},
      {&pl.lsty, "c_pllsty"},
  };
  for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
    void *f = dlsym(lib, syms[i].name);
    if (!f) {
      dlclose(lib);
      return NULL;
    }
    memcpy(syms[i].slot, &f, sizeof f);
  }
  state = 1;
  return &pl;
}

const char *plot_device(const char *path) {
  const char *dot = strrchr(path, '.');
  if (!dot || strchr(dot, '/')) return NULL;
  if (!strcmp(dot, ".png")) return "pngcairo";
  if (!strcmp(dot, ".svg")) return "svgcairo";
  if (!strcmp(dot, ".pdf")) return "pdfcairo";
  return NULL;
}

static jmp_buf plot_abort;
static char plot_abort_msg[256];

static int on_plplot_exit(const char *msg) {
  snprintf(plot_abort_msg, sizeof plot_abort_msg, "%s", msg && *msg ? msg : "PLplot gave up");
  longjmp(plot_abort, 1);
}

/* The colours of the lines, in order (those of matplotlib's tab10). */
static const unsigned char palette[][3] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44},   {214, 39, 40},   {148, 103, 189},
    {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207},
};
#define NCOLORS ((int)(sizeof palette / sizeof *palette))
#define MAX_LEGEND 64

bool plot_available(const char *path, char *err, size_t errlen) {
  const char *dev = plot_device(path);
  if (!dev) return snprintf(err, errlen, "%s: the format is named by the extension: .png, .svg or .pdf", path), false;
  const PLplot *pl = plplot();
  if (!pl)
    return snprintf(err, errlen, "PLplot is not installed (libplplot.so.17: Debian's libplplot17 and "
                                 "plplot-driver-cairo)"), false;
  const char **menu = NULL, **names = NULL;
  const char *menu_buf[128], *name_buf[128];
  int ndev = 128;
  menu = menu_buf;
  names = name_buf;
  pl->gdevs(&menu, &names, &ndev);
  bool have = false;
  for (int i = 0; i < ndev && !have; i++) have = names[i] && !strcmp(names[i], dev);
  if (!have)
    return snprintf(err, errlen, "PLplot has no %s device (its cairo driver: Debian's plplot-driver-cairo)", dev),
           false;
  return true;
}

bool plot_write(const Plot *p, char *err, size_t errlen) {
  if (!plot_available(p->path, err, errlen)) return false;
  const PLplot *pl = plplot();
  const char *dev = plot_device(p->path);
  /* the extent of the data */
  double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
  for (int s = 0; s < p->nseries; s++)
    for (int i = 0; i < p->series[s].n; i++) {
      double x = p->series[s].x[i], y = p->series[s].y[i];
      if (!isfinite(x) || !isfinite(y) || (p->xlog && x <= 0)) continue;
      x = p->xlog ? log10(x) : x;
      xmin = x < xmin ? x : xmin;
      xmax = x > xmax ? x : xmax;
      ymax = y > ymax ? y : ymax;
      double hi = p->series[s].hi ? p->series[s].hi[i] : y;
      ymax = isfinite(hi) && hi > ymax ? hi : ymax;
    }
  if (xmin > xmax) return snprintf(err, errlen, "there is nothing to plot: no point has a finite value"), false;
  double pad = xmin == xmax ? 0.5 : (xmax - xmin) * 0.03; /* the end points not on the frame */
  xmin -= pad;
  xmax += pad;
  ymax = ymax > 0 ? ymax * 1.12 : 1;

  static double xs[4096], ys[4096], lo[4096], band_x[8192], band_y[8192];
  PLINT opts[MAX_LEGEND], colors[MAX_LEGEND], styles[MAX_LEGEND];
  PLFLT widths[MAX_LEGEND];
  const char *labels[MAX_LEGEND];
  int nleg = p->nseries < MAX_LEGEND ? p->nseries : MAX_LEGEND;

  /* PLplot writes a temporary file, renamed to the plot's name once whole:
   * a plot that fails leaves no file, nor cuts one that was there */
  char *tmp = cli_temp_beside(p->path);
  if (!tmp) return snprintf(err, errlen, "cannot write '%s': %s", p->path, strerror(errno)), false;
  if (setjmp(plot_abort)) {
    remove(tmp);
    free(tmp);
    return snprintf(err, errlen, "PLplot: %s", plot_abort_msg), false;
  }
  pl->sexit(on_plplot_exit);
  pl->sdev(dev);
  pl->sfnam(tmp);
  pl->spage(0, 0, 960, 640, 0, 0);
  pl->scolbg(255, 255, 255);
  pl->init();
  pl->scol0(1, 0, 0, 0); /* the axes and labels: black */
  for (int c = 0; c < NCOLORS; c++) pl->scol0(2 + c, palette[c][0], palette[c][1], palette[c][2]);
  /* the frame, with room on the right for the legend, outside the data */
  bool legend = nleg > 1;
  pl->adv(0);
  pl->vpor(0.09, legend ? 0.6 : 0.95, 0.13, 0.9);
  pl->wind(xmin, xmax, 0, ymax);
  pl->col0(1);
  pl->box("bc", 0, 0, "bcgnstv", 0, 0); /* x: the frame only; its ticks are the swept values, below */
  pl->lab("", p->ylabel, p->title);
  pl->mtex("b", 3.2, 0.5, 0.5, p->xlabel);
  /* a tick, a grid line and a label at each value swept (at most 16 labels) */
  int nx = 0;
  static double ticks[4096];
  for (int s = 0; s < p->nseries; s++)
    for (int i = 0; i < p->series[s].n && nx < 4096; i++) {
      double x = p->series[s].x[i];
      if (!isfinite(x) || (p->xlog && x <= 0)) continue;
      bool seen = false;
      for (int k = 0; k < nx && !seen; k++) seen = ticks[k] == x;
      if (!seen) ticks[nx++] = x;
    }
  int every = nx > 16 ? (nx + 15) / 16 : 1;
  for (int k = 0; k < nx; k++) {
    double x = p->xlog ? log10(ticks[k]) : ticks[k];
    pl->lsty(2);
    pl->join(x, 0, x, ymax);
    pl->lsty(1);
    pl->join(x, 0, x, ymax * 0.02);
    if (k % every) continue;
    char text[32];
    double v = ticks[k];
    if (v == floor(v) && fabs(v) < 1e15) {
      long long iv = (long long)v;
      if (iv >= 1 << 20 && iv % (1 << 20) == 0) snprintf(text, sizeof text, "%lldMi", iv >> 20);
      else if (iv >= 1 << 14 && iv % 1024 == 0) snprintf(text, sizeof text, "%lldKi", iv >> 10);
      else snprintf(text, sizeof text, "%lld", iv);
    } else {
      snprintf(text, sizeof text, "%.3g", v);
    }
    pl->mtex("b", 1.5, (x - xmin) / (xmax - xmin), 0.5, text);
  }
  for (int s = 0; s < p->nseries; s++) {
    const PlotSeries *ser = &p->series[s];
    int n = 0;
    for (int i = 0; i < ser->n && n < (int)(sizeof xs / sizeof *xs); i++) {
      double x = ser->x[i], y = ser->y[i];
      if (!isfinite(x) || !isfinite(y) || (p->xlog && x <= 0)) continue;
      xs[n] = p->xlog ? log10(x) : x;
      ys[n] = y;
      band_y[n] = ser->hi && isfinite(ser->hi[i]) ? ser->hi[i] : y;
      lo[n++] = ser->lo && isfinite(ser->lo[i]) ? ser->lo[i] : y;
    }
    int c = 2 + s % NCOLORS;
    if (n > 1 && ser->lo && ser->hi) {
      /* a see-through copy of the line's colour, in the slot after the palette */
      pl->scol0a(2 + NCOLORS, palette[s % NCOLORS][0], palette[s % NCOLORS][1], palette[s % NCOLORS][2], 0.2);
      pl->col0(2 + NCOLORS);
      /* the band: along hi (band_y's first n), then back along lo */
      for (int i = 0; i < n; i++) {
        band_x[i] = band_x[2 * n - 1 - i] = xs[i];
        band_y[2 * n - 1 - i] = lo[i];
      }
      pl->fill(2 * n, band_x, band_y);
    }
    pl->col0(c);
    pl->width(2.0);
    if (n > 1) pl->line(n, xs, ys);
    pl->poin(n, xs, ys, 4);
    if (s < nleg) {
      opts[s] = PL_LEGEND_LINE;
      colors[s] = c;
      styles[s] = 1;
      widths[s] = 2.0;
      labels[s] = ser->label;
    }
  }
  pl->width(1.0);
  pl->col0(1);
  if (legend) {
    PLFLT w, h;
    pl->legend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, PL_POSITION_RIGHT | PL_POSITION_OUTSIDE,
               0.02, 0.0, 0.04, 0, 1, 1, 0, 0, nleg, opts, 1.0, 0.7, 2.0, 0.0, colors, labels, NULL, NULL, NULL, NULL,
               colors, styles, widths, NULL, NULL, NULL, NULL);
  }
  pl->end();
  pl->sexit(NULL);
  bool ok = rename(tmp, p->path) == 0;
  if (!ok) {
    snprintf(err, errlen, "cannot write '%s': %s", p->path, strerror(errno));
    remove(tmp);
  }
  free(tmp);
  return ok;
}
