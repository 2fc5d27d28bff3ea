#ifndef FEEDAGG_CCURL_SHIM_H
#define FEEDAGG_CCURL_SHIM_H

/*
 * Typed wrappers for libcurl's variadic functions, which Swift cannot call.
 * One line each; the option passed must match the wrapper's value type.
 */

#include <curl/curl.h>

/* curl_global_init(CURL_GLOBAL_ALL): the macro is not importable as a constant. */
static inline CURLcode ccurl_global_init_all(void) {
    return curl_global_init(CURL_GLOBAL_ALL);
}

/* ---- curl_easy_setopt ---- */

static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) {
    return curl_easy_setopt(h, o, v);
}

static inline CURLcode ccurl_setopt_string(CURL *h, CURLoption o, const char *v) {
    return curl_easy_setopt(h, o, v);
}

static inline CURLcode ccurl_setopt_pointer(CURL *h, CURLoption o, void *v) {
    return curl_easy_setopt(h, o, v);
}

static inline CURLcode ccurl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return curl_easy_setopt(h, o, v);
}

static inline CURLcode ccurl_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) {
    return curl_easy_setopt(h, o, v);
}

/* CURLOPT_WRITEFUNCTION */
static inline CURLcode ccurl_setopt_write_function(CURL *h, curl_write_callback f) {
    return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
}

/* CURLOPT_HEADERFUNCTION (same signature as the write callback) */
static inline CURLcode ccurl_setopt_header_function(CURL *h, curl_write_callback f) {
    return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f);
}

/* CURLOPT_XFERINFOFUNCTION */
static inline CURLcode ccurl_setopt_xferinfo_function(CURL *h, curl_xferinfo_callback f) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f);
}

/* ---- curl_easy_getinfo ---- */

static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v) {
    return curl_easy_getinfo(h, i, v);
}

static inline CURLcode ccurl_getinfo_double(CURL *h, CURLINFO i, double *v) {
    return curl_easy_getinfo(h, i, v);
}

/* The string is owned by the handle; copy it before the handle is reset or freed. */
static inline CURLcode ccurl_getinfo_string(CURL *h, CURLINFO i, const char **v) {
    return curl_easy_getinfo(h, i, v);
}

static inline CURLcode ccurl_getinfo_off_t(CURL *h, CURLINFO i, curl_off_t *v) {
    return curl_easy_getinfo(h, i, v);
}

/* ---- curl_multi_setopt ---- */

static inline CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) {
    return curl_multi_setopt(m, o, v);
}

#endif /* FEEDAGG_CCURL_SHIM_H */
