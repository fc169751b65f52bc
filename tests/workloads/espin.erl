%% SPDX-License-Identifier: MIT
%% Erlang for the JIT's names (tests/cli/sym/names.sh): a loop of
%% arithmetic in one module, for MS milliseconds.
%% usage: erl -noshell +JPperf true -pa DIR -run espin main MS
-module(espin).
-export([main/1]).

work(0, A) -> A;
work(N, A) -> work(N - 1, (A * 31 + N) rem 1000003).

loop(End, A) ->
    case erlang:monotonic_time(millisecond) < End of
        true -> loop(End, work(10000, A));
        false -> A
    end.

main([Ms]) ->
    End = erlang:monotonic_time(millisecond) + list_to_integer(Ms),
    io:format("~p~n", [loop(End, 1) > 0]),
    halt().
