/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cppcheck cannot know without the system headers (read without them: fast, and
 * findings are the project's own): the library macros that look like statements.
 */
#define LIBBPF_OPTS(TYPE, NAME, ...) struct TYPE NAME = { .sz = sizeof(struct TYPE), __VA_ARGS__ }
#define json_object_foreach(object, key, value) \
	for (key = json_object_iter_key(json_object_iter(object)); \
	     key && (value = json_object_iter_value(json_object_key_to_iter(key))); \
	     key = json_object_iter_key(json_object_iter_next(object, json_object_key_to_iter(key))))
#define json_array_foreach(array, index, value) \
	for (index = 0; index < json_array_size(array) && (value = json_array_get(array, index)); index++)
#define bpf_object__for_each_program(pos, obj) \
	for ((pos) = bpf_object__next_program((obj), NULL); (pos); \
	     (pos) = bpf_object__next_program((obj), (pos)))
#define bpf_object__for_each_map(pos, obj) \
	for ((pos) = bpf_object__next_map((obj), NULL); (pos); (pos) = bpf_object__next_map((obj), (pos)))
