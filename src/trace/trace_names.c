/* trace_names.c: printable names of the format's enumerations. */
#include "trace_format.h"

const char *trace_record_kind_name(unsigned kind)
{
	switch (kind) {
	case TRACE_REC_INFO: return "info";
	case TRACE_REC_CLOCK: return "clock";
	case TRACE_REC_COUNTER_DEF: return "counter_def";
	case TRACE_REC_COUNTER_MISSING: return "counter_missing";
	case TRACE_REC_REGION_DEF: return "region_def";
	case TRACE_REC_MODULE_LOAD: return "module_load";
	case TRACE_REC_MODULE_UNLOAD: return "module_unload";
	case TRACE_REC_STAT: return "stat";
	case TRACE_REC_THROTTLE: return "throttle";
	case TRACE_REC_THREAD_START: return "thread_start";
	case TRACE_REC_THREAD_END: return "thread_end";
	case TRACE_REC_COUNTER_SET: return "counter_set";
	case TRACE_REC_ENTER: return "enter";
	case TRACE_REC_ENTER_CTR: return "enter_ctr";
	case TRACE_REC_EXIT: return "exit";
	case TRACE_REC_EXIT_CTR: return "exit_ctr";
	case TRACE_REC_SAMPLE: return "sample";
	case TRACE_REC_STACK_DEF: return "stack_def";
	case TRACE_REC_MARKER: return "marker";
	case TRACE_REC_SAMPLE_COST: return "sample_cost";
	case TRACE_REC_PAUSE: return "pause";
	case TRACE_REC_HOOK_COST: return "hook_cost";
	default: return "unknown";
	}
}

const char *trace_counter_kind_name(unsigned kind)
{
	switch (kind) {
	case TRACE_COUNTER_HARDWARE: return "hardware";
	case TRACE_COUNTER_SOFTWARE: return "software";
	case TRACE_COUNTER_APP: return "app";
	default: return "unknown";
	}
}

const char *trace_region_kind_name(unsigned kind)
{
	switch (kind) {
	case TRACE_REGION_API: return "api";
	case TRACE_REGION_FUNCTION: return "function";
	case TRACE_REGION_MPI: return "mpi";
	case TRACE_REGION_OPENMP: return "openmp";
	case TRACE_REGION_BURST: return "burst";
	default: return "unknown";
	}
}
