/*
 * embed.c — a build tool: writes a file's bytes as a C string constant, so
 * that text the compiler needs at run time (the IRDL of the tile dialect) is
 * part of the binary. Usage: embed NAME INPUT OUTPUT.
 */
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: embed NAME INPUT OUTPUT\n");
    return 2;
  }
  FILE *in = fopen(argv[2], "rb"), *out = fopen(argv[3], "wb");
  if (!in || !out) {
    fprintf(stderr, "embed: cannot open %s or %s\n", argv[2], argv[3]);
    return 1;
  }
  fprintf(out, "/* generated from %s by embed.c */\nstatic const char %s[] =\n\"", argv[2], argv[1]);
  int c;
  while ((c = fgetc(in)) != EOF) {
    if (c == '\n') fprintf(out, "\\n\"\n\"");
    else if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c < 32 || c > 126) fprintf(out, "\\%03o", c);
    else fputc(c, out);
  }
  fprintf(out, "\";\n");
  fclose(in);
  return fclose(out) ? 1 : 0;
}
